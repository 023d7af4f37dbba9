/** Seeded pseudo-random numbers (mulberry32), so generated test and bench data is the same every run. */

/** A generator of numbers in [0, 1) that gives the same sequence for the same seed. */
export function seededRandom(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One of `items`, chosen by the generator. */
export const pick = <T>(next: () => number, items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
