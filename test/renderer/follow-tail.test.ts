import { describe, expect, it } from 'vitest';
import { afterAppend, afterScroll, initialTail, isAtEnd, jumpToLatest } from '../../renderer/src/lib/follow-tail.js';

// A log 1000 px tall in a 200 px window: the end is at offset 800.
const at = (offset: number, size = 1000) => ({ offset, viewport: 200, size });

describe('auto-scroll of the live log', () => {
  it('counts the last few pixels as the end', () => {
    expect(isAtEnd(at(800))).toBe(true);
    expect(isAtEnd(at(795))).toBe(true);
    expect(isAtEnd(at(780))).toBe(false);
    expect(isAtEnd({ offset: 0, viewport: 200, size: 50 })).toBe(true);
  });

  it('pauses when the user scrolls up and counts rows that arrive meanwhile', () => {
    let s = afterScroll(initialTail(), at(800));
    expect(s.following).toBe(true);
    s = afterScroll(s, at(500));
    expect(s.following).toBe(false);
    s = afterAppend(s, 3);
    s = afterAppend(s, 2);
    expect(s.unseen).toBe(5);
  });

  it('keeps following when rows arrive and the end moves away without the user scrolling', () => {
    let s = afterScroll(initialTail(), at(800));
    s = afterAppend(s, 10);
    // The content grew to 1280 px before the view caught up; the offset did not go up.
    s = afterScroll(s, at(800, 1280));
    expect(s.following).toBe(true);
    expect(s.unseen).toBe(0);
  });

  it('stays paused while the user scrolls down but not yet to the end', () => {
    let s = afterScroll(afterScroll(initialTail(), at(800)), at(300));
    s = afterScroll(s, at(600));
    expect(s.following).toBe(false);
  });

  it('resumes when the user reaches the end again, or presses Jump to latest', () => {
    let s = afterAppend(afterScroll(afterScroll(initialTail(), at(800)), at(100)), 4);
    expect(afterScroll(s, at(800)).following).toBe(true);
    expect(afterScroll(s, at(800)).unseen).toBe(0);
    s = jumpToLatest(s);
    expect(s).toMatchObject({ following: true, unseen: 0 });
  });

  it('does not pause when the view shrinks (details pane opened) and moves the offset', () => {
    let s = afterScroll(initialTail(), at(800));
    s = afterScroll(s, { offset: 700, viewport: 120, size: 1000 });
    expect(s.following).toBe(true);
    // A real move up after that still pauses.
    expect(afterScroll(s, { offset: 400, viewport: 120, size: 1000 }).following).toBe(false);
  });

  it('ignores empty appends', () => {
    const paused = afterScroll(afterScroll(initialTail(), at(800)), at(100));
    expect(afterAppend(paused, 0)).toBe(paused);
  });
});
