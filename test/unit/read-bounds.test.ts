/**
 * What read_result writes stays bounded and well-formed (audit s11): a query's answer is written within
 * its deadline and up to a size, cuts never split a character, grep marks only the matches it counts,
 * and a gone handle says what to do next.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import { SpillStore } from '../../electron/core/spill/spill-store.js';
import { readResult } from '../../electron/core/spill/read-result.js';
import { prettyJsonWithin } from '../../electron/core/spill/read-pretty-json.js';

const counter = new TokenCounter();
afterAll(() => counter.close());

let root: string;
let store: SpillStore;
let clock: number;
beforeEach(async () => {
  clock = Date.UTC(2026, 0, 1);
  root = await mkdtemp(join(tmpdir(), 'spillway-read-bounds-'));
  store = await SpillStore.open({ dir: join(root, 'spill'), now: () => clock, counter });
});
afterEach(async () => {
  await store.close();
  await rm(root, { recursive: true, force: true });
});

const put = async (text: string) => (await store.put({ content: [{ type: 'text', text }] }, { server: 's', tool: 't' })).handle;
async function read(args: Record<string, unknown>, maxOutputTokens?: number): Promise<{ text: string; isError: boolean }> {
  const result = await readResult(store, counter, args, maxOutputTokens ? { maxOutputTokens } : {});
  const first = result.content[0];
  return { text: first?.type === 'text' ? first.text : '', isError: result.isError === true };
}
/** True when `text` has half of a surrogate pair on its own. */
const splitsAChar = (text: string) => /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
/** `{a: get(), b: get()}` applied n times: built in n steps, its JSON text doubles with each one. */
const doubling = (n: number) => '.items | limit(1) | ' + Array(n).fill('{a: get(), b: get()}').join(' | ');

describe('prettyJsonWithin', () => {
  it.each<[string, unknown]>([
    ['null', null],
    ['number', -0],
    ['special numbers', [NaN, Infinity, 1e21, 0.1]],
    ['strings with escapes', ['a"b\\c\n', '😀', '\u2028']],
    ['empty containers', { a: [], b: {}, c: [[], [{}]] }],
    ['undefined and functions', { a: undefined, b: () => 1, c: [undefined, () => 1], d: 1 }],
    ['nesting', { items: [{ id: 1, tags: ['x', 'y'], deep: { more: [true, false, null] } }], 'odd key': 2 }],
    ['toJSON', { when: new Date(0), boxed: [Object(1), Object('s')] }],
  ])('writes what JSON.stringify(value, null, 2) writes: %s', (_name, value) => {
    expect(prettyJsonWithin(value, 10_000)).toEqual({ text: JSON.stringify(value, null, 2), complete: true });
  });

  it('stops at the size: a cut answer is its start, never half a character', () => {
    const value = { s: 'x'.repeat(9) + '😀'.repeat(10) };
    const whole = JSON.stringify(value, null, 2);
    const cut = prettyJsonWithin(value, 20);
    expect(cut.complete).toBe(false);
    expect(whole.startsWith(cut.text)).toBe(true);
    expect(cut.text.length).toBe(19); // 20 would end inside an emoji
  });
});

describe('a query whose answer is too large to print', () => {
  it('answers with its start and a note to narrow the query, in milliseconds (printed whole: ~20 s)', async () => {
    const handle = await put(JSON.stringify({ items: [{ id: 1, name: 'x' }] }));
    const started = Date.now();
    const { text, isError } = await read({ handle, op: 'query', query: doubling(24) });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(isError).toBe(false);
    expect(text.split('\n')[1]).toBe(
      '[The answer is too large to show whole (over 128,000 characters of JSON); only its start is shown. ' +
        'Narrow the query: add limit(n), pick only the fields you need (e.g. pick(.id, .name)), or filter first.]',
    );
    expect(text.split('\n')[2]).toBe('{');
    expect(text).toMatch(/\[output capped at 8,000 tokens; select less/);
  });

  it('a smaller cap writes less before stopping; an answer within it is whole', async () => {
    const handle = await put(JSON.stringify({ items: [{ id: 1, name: 'x' }] }));
    expect((await read({ handle, op: 'query', query: doubling(12) }, 300)).text).toContain('over 4,800 characters of JSON');
    const whole = await read({ handle, op: 'query', query: doubling(2) }, 300);
    expect(JSON.parse(whole.text.slice(whole.text.indexOf('\n') + 1))).toEqual({
      a: { a: [{ id: 1, name: 'x' }], b: [{ id: 1, name: 'x' }] },
      b: { a: [{ id: 1, name: 'x' }], b: [{ id: 1, name: 'x' }] },
    });
  });
});

describe('cuts fall on character boundaries', () => {
  const emoji = 'a' + '😀'.repeat(5_000); // 10,001 UTF-16 units: a pair starts at every odd index

  it.each<[string, Record<string, unknown>]>([
    ['head (a line clipped at 2,000)', { op: 'head', lines: 1 }],
    ['grep (a line shown around its match)', { op: 'grep', pattern: 'a' }],
    ['grep (a match deep in the line)', { op: 'grep', pattern: 'b' }],
    ['read at an offset inside a pair', { op: 'read', offset: 2 }],
    // '𝔘' is 3 tokens: a 1-token budget keeps none of it, and the read cuts by characters instead.
    ['read with a budget smaller than a character', { op: 'read', offset: 1, maxTokens: 1, text: 'a' + '𝔘'.repeat(10) }],
  ])('%s', async (_name, args) => {
    const { text: own, ...op } = args;
    const handle = await put(typeof own === 'string' ? own : op.pattern === 'b' ? emoji.slice(0, 601) + 'b' + emoji.slice(601) : emoji);
    const { text, isError } = await read({ handle, ...op });
    expect(isError).toBe(false);
    expect(splitsAChar(text)).toBe(false);
  });

  it('a read at an offset inside a pair starts at that character and says so', async () => {
    const handle = await put(emoji);
    const { text } = await read({ handle, op: 'read', offset: 2, maxTokens: 5 });
    expect(text.startsWith('😀')).toBe(true);
    expect(text).toMatch(/\[characters 1-\d+ of 10,001;/);
  });
});

describe('grep past maxMatches', () => {
  it('shows the matches it did not count as context, not as matches', async () => {
    const handle = await put(['x 1', 'x 2', 'x 3', 'x 4', 'other'].join('\n'));
    const { text } = await read({ handle, op: 'grep', pattern: 'x', maxMatches: 2, context: 1 });
    expect(text).toBe(
      'grep /x/i: 4 matching lines of 5, showing the first 2 (raise maxMatches or narrow the pattern for more).\n1:x 1\n2:x 2\n3-x 3',
    );
  });
});

describe('a handle that is gone', () => {
  it('tells the model to call the tool again', async () => {
    const handle = await put('some text');
    expect((await read({ handle: 'abcdefghijkl', op: 'head' })).text).toMatch(/call the tool that made it again for a new one\.$/);
    clock += 25 * 3_600_000;
    expect(await read({ handle, op: 'head' })).toEqual({
      isError: true,
      text: `The spilled result "${handle}" expired at 2026-01-02T00:00:00.000Z: call the tool that made it again for a fresh result and a new handle.`,
    });
  });
});
