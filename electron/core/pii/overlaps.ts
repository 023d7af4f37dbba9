import type { PiiMatch } from './pii-detectors.js';

/** A detector's match with the detector's place in the priority order (0 wins). */
export interface RankedMatch extends PiiMatch {
  rank: number;
}

/**
 * Non-overlapping matches in text order that still cover every character any candidate covered. Where
 * candidates overlap, the higher-ranked one keeps its whole span (then the longer one); what a
 * lower-ranked one covers beyond it stays masked as a match of its own label, less the whitespace at its
 * ends. `+1.2.3.4 123-45-6789` (a phone number holding an SSN) becomes `[PHONE_1] [SSN_1]`, not
 * `+1.2.3.4 [SSN_1]`. `view` is the text the candidates were found in.
 */
export function resolveOverlaps(candidates: RankedMatch[], view: string): PiiMatch[] {
  candidates.sort((a, b) => a.start - b.start || b.end - a.end);
  const resolved: PiiMatch[] = [];
  let i = 0;
  while (i < candidates.length) {
    // A cluster: candidates joined by overlaps. Nearly always one.
    let j = i + 1;
    let end = candidates[i]!.end;
    while (j < candidates.length && candidates[j]!.start < end) end = Math.max(end, candidates[j++]!.end);
    if (j === i + 1) {
      const { start, label } = candidates[i]!;
      resolved.push({ start, end, label });
    } else paint(candidates.slice(i, j), end, view, resolved);
    i = j;
  }
  return resolved;
}

/**
 * Each character of the cluster goes to the best candidate covering it: lowest priority painted first,
 * higher ones over it, so the cost is the candidates' total length. Runs of one label become one match.
 */
function paint(cluster: RankedMatch[], end: number, view: string, into: PiiMatch[]): void {
  const base = cluster[0]!.start;
  const owner = new Int32Array(end - base);
  const order = cluster.map((_, k) => k);
  order.sort((a, b) => cluster[b]!.rank - cluster[a]!.rank || length(cluster[a]!) - length(cluster[b]!));
  for (const k of order) owner.fill(k, cluster[k]!.start - base, cluster[k]!.end - base);
  let runStart = 0;
  for (let at = 1; at <= owner.length; at++) {
    const first = cluster[owner[runStart]!]!;
    const label = first.label;
    if (at < owner.length && cluster[owner[at]!]!.label === label) continue;
    let start = base + runStart;
    let stop = base + at;
    // A piece cut from a candidate does not take the whitespace at its ends; a whole candidate is kept as found.
    if (first.start !== start || first.end !== stop) {
      while (start < stop && /\s/.test(view[start]!)) start++;
      while (stop > start && /\s/.test(view[stop - 1]!)) stop--;
    }
    if (start < stop) into.push({ start, end: stop, label });
    runStart = at;
  }
}

function length(m: PiiMatch): number {
  return m.end - m.start;
}
