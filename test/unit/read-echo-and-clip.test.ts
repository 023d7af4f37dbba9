/**
 * What read_result repeats of the model's request stays short (audit s13: a 200,000-character bad query
 * came back whole, JSON-escaped, as 400,000 characters), and a clipped line says where to read it whole.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import { SpillStore } from '../../electron/core/spill/spill-store.js';
import { readResult } from '../../electron/core/spill/read-result.js';
import { sliceLines } from '../../electron/core/spill/read-ops.js';
import { SpillDocument } from '../../electron/core/spill/spill-document.js';

const counter = new TokenCounter();
afterAll(() => counter.close());

let root: string;
let store: SpillStore;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-read-echo-'));
  store = await SpillStore.open({ dir: join(root, 'spill'), now: Date.now, counter });
});
afterEach(async () => {
  await store.close();
  await rm(root, { recursive: true, force: true });
});

const put = async (text: string) => (await store.put({ content: [{ type: 'text', text }] }, { server: 's', tool: 't' })).handle;
async function read(args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const result = await readResult(store, counter, args);
  const first = result.content[0];
  return { text: first?.type === 'text' ? first.text : '', isError: result.isError === true };
}

describe('the request repeated in an answer', () => {
  it('is its first 200 characters in an error, whatever its length', async () => {
    const handle = await put('{"a":[1,2,3]}');
    const badQuery = '$' + '."x'.repeat(3_000); // 9,001 characters, each `"` escaped when quoted
    const badPattern = '(?=' + 'a'.repeat(9_000) + ')';
    const unknownFunction = `.a | ${'f'.repeat(9_000)}()`; // JSON Query's own message names the function
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ op: 'query', query: badQuery }, /^Bad query "\$[.\\"x]{200,}…": Value expected/],
      [{ op: 'grep', pattern: badPattern }, /^Bad regular expression "\(\?=a+…": lookahead/],
      [{ op: 'query', query: unknownFunction }, /^Bad query "\.a \| f+…": Unknown function 'f+…\. Use JSON Query syntax/],
      [{ op: 'query', query: `.a | filter(regex(get(), "${'('.repeat(9_000)}"))` }, /^Bad regular expression in query ".*…": /],
    ];
    for (const [args, expected] of cases) {
      const { text, isError } = await read({ handle, ...args });
      expect(isError).toBe(true);
      expect(text).toMatch(expected);
      expect(text.length, text.slice(0, 80)).toBeLessThan(1_000);
    }
  });

  it('is the first 200 characters of a long query or pattern in an answer that worked', async () => {
    const query = '.a' + ' | limit(2)'.repeat(500);
    const answer = await read({ handle: await put('{"a":[1,2,3]}'), op: 'query', query });
    expect(answer.text.split('\n')[0]).toBe(`Query ${JSON.stringify(query.slice(0, 200) + '…')}:`);
    const pattern = 'zz|'.repeat(1_000) + 'second';
    const handle = await put('first line\nsecond line\n');
    expect((await read({ handle, op: 'grep', pattern })).text).toBe(`grep /${pattern.slice(0, 200)}…/i: 1 matching line of 2:\n2:second line`);
  });

  it('is never more than the backstop, even where a library repeats it (an unknown argument)', async () => {
    const handle = await put('text');
    const { text, isError } = await read({ handle, op: 'stat', ['k'.repeat(300_000)]: 1 });
    expect(isError).toBe(true);
    expect(text).toMatch(/^Invalid arguments for spillway__read_result: /);
    expect(text.length).toBeLessThanOrEqual(2_001);
    expect(await counter.isWithin(text, 8_000)).toBe(true);
  });
});

describe('a clipped line', () => {
  // Line 3 starts after "short\r\n" (7) and "😀 two\n" (7: the emoji is two UTF-16 characters).
  const LONG = 'x'.repeat(4_000) + 'END';
  const TEXT = `short\r\n😀 two\n${LONG}\r\nfour\n${'y'.repeat(2_500)}\n`;

  it('says the offset it starts at, and a read from there gives it from its start', async () => {
    const handle = await put(TEXT);
    const head = await read({ handle, op: 'head', lines: 5 });
    expect(head.text.split('\n')[3]).toBe(
      `${'x'.repeat(2_000)}… [line clipped: 4,003 characters; read all of it from its start with {"op":"read","offset":14}]`,
    );
    const fifth = 14 + LONG.length + 2 + 'four\n'.length;
    expect(head.text.split('\n')[5]).toMatch(new RegExp(`^y{2000}… \\[line clipped: 2,500 characters; .*\\{"op":"read","offset":${fifth}\\}\\]$`));
    // The same offsets when the slice starts at the line, or past the first.
    expect((await read({ handle, op: 'slice', start: 3, end: 3 })).text).toContain('{"op":"read","offset":14}');
    expect((await read({ handle, op: 'tail', lines: 1 })).text).toContain(`{"op":"read","offset":${fifth}}`);
    const whole = await read({ handle, op: 'read', offset: 14, maxTokens: 4_000 });
    expect(whole.text.startsWith(`${LONG}\r\nfour\n`)).toBe(true);
  });

  it("of a TOON view's rows is read whole by a query (an offset there is not one in the text)", () => {
    const view = new SpillDocument(`rows[1]{name}:\n  ${'z'.repeat(3_000)}\n`);
    expect(sliceLines(view, 2, 2, { view: true })).toBe(
      `Lines 2-2 of 2:\n  ${'z'.repeat(1_998)}… [line clipped: 3,002 characters; query its row for all of it]`,
    );
  });
});
