/**
 * Texts quoted from a server are cut where a word ends, before they are masked for secrets by whole
 * value: a token cut in two would leave its head unmasked.
 */
import { describe, expect, it } from 'vitest';
import { cutAtWord } from '../../electron/core/text/word-cut.js';
import { StderrTail, MAX_STDERR_LINE_CHARS } from '../../electron/core/upstream/stderr-tail.js';
import { describeConnectError } from '../../electron/core/upstream/connect-error.js';

describe('cutAtWord', () => {
  it.each([
    ['short text', 20, 'short text'],
    ['one two three', 7, 'one two'],
    ['one two three', 8, 'one two'],
    ['one two three', 9, 'one two'],
    ['one twothree', 9, 'one'],
    ['averyveryverylongword and more', 10, 'averyveryv'],
  ])('%j within %i → %j', (text, max, want) => {
    expect(cutAtWord(text, max)).toBe(want);
  });
});

describe('a secret at the cut', () => {
  const secret = 'sk-live-7f3a9c1e5b2d4f6a8c0e';

  it('is left out whole from a stderr line over the limit', () => {
    const tail = new StderrTail(5);
    const before = 'x '.repeat((MAX_STDERR_LINE_CHARS - 10) / 2);
    tail.push(`${before}key=${secret} and more\n`);
    const [line] = tail.lines();
    expect(line!.length).toBeLessThanOrEqual(MAX_STDERR_LINE_CHARS + 1);
    expect(line).not.toContain('sk-live');
  });

  it('is left out whole from a quoted error page', () => {
    const page = `${'word '.repeat(30)}token ${secret} was refused`;
    const error = Object.assign(new Error(`Error POSTing to endpoint: ${page}`), { code: 403 });
    const message = describeConnectError(error, { type: 'http', url: 'http://127.0.0.1:1/mcp', headers: {}, enabled: true, prefix: true });
    expect(message).toMatch(/refused access \(HTTP 403: "word word/);
    expect(message).not.toMatch(/sk-live-7f3a9c1e5b2d4f6a8c0(?!e)/);
  });
});
