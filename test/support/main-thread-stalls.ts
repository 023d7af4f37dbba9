/**
 * How long the test's own thread (the hub's main thread, in process) was held while some work ran: an
 * interval ticks every 5 ms, and the longest time the thread was busy between two ticks is the longest
 * stall. The tests of work moved to the read thread measure with it that the main thread stayed free.
 *
 * Busy time, not the gap between ticks: on a loaded machine the thread can wait 150-200 ms to be scheduled
 * while nothing holds it (seen with two CPUs under load), and the gap counted that as a stall. Time the
 * event loop waits for events, however long it waits to run, is idle in its utilization; work that holds
 * the thread is busy time however fast the machine is.
 */
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/** The longest time this thread was busy between ticks of a 5 ms interval while `work` runs, up to the first tick after it. */
export async function longestStallDuring(work: () => Promise<unknown>): Promise<number> {
  let since: EventLoopUtilization = performance.eventLoopUtilization();
  let longest = 0;
  let onTick: (() => void) | undefined;
  const timer = setInterval(() => {
    longest = Math.max(longest, performance.eventLoopUtilization(since).active);
    since = performance.eventLoopUtilization();
    onTick?.();
  }, 5);
  try {
    await work();
    // The next tick measures what the end of the work held.
    await new Promise<void>((resolve) => (onTick = resolve));
  } finally {
    clearInterval(timer);
  }
  return longest;
}
