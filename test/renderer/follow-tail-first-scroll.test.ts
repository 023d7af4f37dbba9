import { expect, it } from 'vitest';
import { afterScroll, initialTail } from '../../renderer/src/lib/follow-tail.js';

it('pauses on the first scroll up after the log opens (no viewport known yet, so it is not a resize)', () => {
  // The log opened following at the end (offset 800 of 1000 in a 200 px window) without a scroll event;
  // the user's first wheel up is the first event the list reports.
  const s = afterScroll(initialTail(), { offset: 200, viewport: 200, size: 1000 });
  expect(s.following).toBe(false);
  expect(s.lastViewport).toBe(200);
});

it('keeps following when the first scroll event is at the end', () => {
  expect(afterScroll(initialTail(), { offset: 800, viewport: 200, size: 1000 }).following).toBe(true);
});
