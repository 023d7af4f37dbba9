import { describe, expect, it } from 'vitest';
import { Ring } from '../../electron/core/log/event-ring.js';
import { compareSegments, daysBefore, dayOf, parseSegmentFileName, segmentFileName } from '../../electron/core/log/journal-files.js';

describe('Ring', () => {
  it('keeps at most its capacity, newest last, and reports evictions', () => {
    const ring = new Ring<number>(3);
    expect(ring.oldest()).toBeUndefined();
    expect([1, 2, 3].map((n) => ring.push(n))).toEqual([false, false, false]);
    expect(ring.push(4)).toBe(true);
    expect(ring.push(5)).toBe(true);
    expect(ring.size).toBe(3);
    expect(ring.toArray()).toEqual([3, 4, 5]);
    expect([...ring.newestFirst()]).toEqual([5, 4, 3]);
    expect(ring.oldest()).toBe(3);
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new Ring(0)).toThrow(/positive integer/);
    expect(() => new Ring(1.5)).toThrow(/positive integer/);
  });
});

describe('journal file names', () => {
  it.each([
    ['events', '2025-03-10', 0, 'events-2025-03-10.jsonl'],
    ['events', '2025-03-10', 2, 'events-2025-03-10.2.jsonl'],
    ['ledger', undefined, 0, 'ledger.jsonl'],
    ['ledger', undefined, 11, 'ledger.11.jsonl'],
  ])('%s %s %i <-> %s', (name, day, index, file) => {
    expect(segmentFileName(name, day, index)).toBe(file);
    expect(parseSegmentFileName(name, day !== undefined, file)).toEqual(day ? { day, index } : { index });
  });

  it.each([
    ['events', true, 'events.jsonl'],
    ['events', true, 'events-2025-3-1.jsonl'],
    ['events', true, 'events-2025-03-10.jsonl.tmp'],
    ['events', true, 'other-2025-03-10.jsonl'],
    ['ledger', false, 'ledger-2025-03-10.jsonl'],
    ['ledger', false, 'ledger.x.jsonl'],
  ])('%s ignores %s', (name, daily, file) => {
    expect(parseSegmentFileName(name, daily, file)).toBeUndefined();
  });

  it('orders segments by day, then by index numerically', () => {
    const segs = [
      { file: '', path: '', day: '2025-03-10', index: 10 },
      { file: '', path: '', day: '2025-03-09', index: 0 },
      { file: '', path: '', day: '2025-03-10', index: 2 },
      { file: '', path: '', day: '2025-03-10', index: 0 },
    ];
    expect(segs.sort(compareSegments).map((s) => `${s.day}.${s.index}`)).toEqual(['2025-03-09.0', '2025-03-10.0', '2025-03-10.2', '2025-03-10.10']);
  });

  it('computes UTC days and offsets', () => {
    const t = Date.parse('2025-03-10T23:30:00Z');
    expect(dayOf(t)).toBe('2025-03-10');
    expect(dayOf(t, 60)).toBe('2025-03-11');
    expect(dayOf(t, -24 * 60)).toBe('2025-03-09');
    expect(daysBefore('2025-03-01', 1)).toBe('2025-02-28');
    expect(daysBefore('2025-03-10', 0)).toBe('2025-03-10');
  });
});
