/**
 * How long the test's own thread (the hub's main thread, in process) was held while some work ran: an
 * interval ticks every 5 ms, and the longest gap between its ticks is the longest stall. The tests of work
 * moved to the read thread measure with it that the main thread stayed free.
 */

/** The longest gap between ticks of a 5 ms interval on this thread while `work` runs, up to the first tick after it. */
export async function longestStallDuring(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let longest = 0;
  let onTick: (() => void) | undefined;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    onTick?.();
  }, 5);
  try {
    await work();
    // The next tick measures the gap the end of the work left.
    await new Promise<void>((resolve) => (onTick = resolve));
  } finally {
    clearInterval(timer);
  }
  return longest;
}
