import { describe, expect, it } from 'vitest';
import { MAX_STDERR_LINE_CHARS, StderrTail } from '../../electron/core/upstream/stderr-tail.js';

describe('StderrTail', () => {
  it('splits chunks into lines and keeps the last N', () => {
    const seen: string[] = [];
    const tail = new StderrTail(3, (line) => seen.push(line));
    tail.push('one\ntw');
    tail.push('o\r\nthree\nfour\n');
    tail.push('fi');
    expect(tail.lines()).toEqual(['two', 'three', 'four']);
    expect(seen).toEqual(['one', 'two', 'three', 'four']);
    tail.flush();
    expect(tail.lines()).toEqual(['three', 'four', 'fi']);
  });

  it('cuts an endless line instead of growing', () => {
    const tail = new StderrTail(10);
    for (let i = 0; i < 100; i++) tail.push('x'.repeat(1000));
    tail.push('\nnext\n');
    expect(tail.lines()).toEqual([`${'x'.repeat(MAX_STDERR_LINE_CHARS)}…`, 'next']);
  });

  it('cuts a long line that ends in the same chunk', () => {
    const tail = new StderrTail(10);
    tail.push(`${'y'.repeat(MAX_STDERR_LINE_CHARS + 5)}\nok\n`);
    expect(tail.lines()).toEqual([`${'y'.repeat(MAX_STDERR_LINE_CHARS)}…`, 'ok']);
  });

  it('keeps nothing with capacity 0 but still reports lines', () => {
    const seen: string[] = [];
    const tail = new StderrTail(0, (line) => seen.push(line));
    tail.push('a\nb\n');
    expect(tail.lines()).toEqual([]);
    expect(seen).toEqual(['a', 'b']);
  });
});
