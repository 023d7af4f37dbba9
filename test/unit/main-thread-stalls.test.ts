/** The stall probe of test/support/main-thread-stalls.ts: it measures up to the first tick after the work, so a hold at the very end counts. */
import { describe, expect, it } from 'vitest';
import { longestStallDuring } from '../support/main-thread-stalls.js';

/** Holds this thread for `ms`. */
function hold(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

describe('longestStallDuring', () => {
  it('counts a hold at the very end of the work', async () => {
    const stall = await longestStallDuring(async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      hold(80);
    });
    expect(stall).toBeGreaterThanOrEqual(80);
  });
});
