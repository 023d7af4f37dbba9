import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { decode } from '@toon-format/toon';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import { handleMessages, SpillStore } from '../../electron/core/spill/spill-store.js';
import { readResult } from '../../electron/core/spill/read-result.js';
import { READ_RESULT_TOOL, READ_RESULT_TOOL_NAME } from '../../electron/core/spill/read-result-tool.js';
import { toJsonQuery } from '../../electron/core/spill/read-ops.js';
import { isSpillUri, readSpillResource, SpillResourceError } from '../../electron/core/spill/spill-resource.js';

const counter = new TokenCounter();
afterAll(() => counter.close());

let root: string;
let store: SpillStore;
let clock: number;
const now = () => clock;
const meta = { server: 'fs', tool: 'read_file' };

const LOG = Array.from({ length: 1000 }, (_, i) => `${i + 1} ${i % 100 === 0 ? 'ERROR disk full' : 'INFO ok'} request=${i}`).join('\n') + '\n';
const DATA = {
  total: 3,
  items: [
    { id: 1, name: 'alpha', status: 'ok' },
    { id: 2, name: 'beta', status: 'error' },
    { id: 3, name: 'gamma', status: 'error' },
  ],
  'odd key': { deep: [10, 20] },
};
let logHandle: string;
let jsonHandle: string;

beforeEach(async () => {
  clock = Date.UTC(2026, 0, 1);
  root = await mkdtemp(join(tmpdir(), 'spillway-read-'));
  store = await SpillStore.open({ dir: join(root, 'spill'), now, counter });
  logHandle = (await store.put({ content: [{ type: 'text', text: LOG }] }, meta)).handle;
  jsonHandle = (await store.put({ content: [{ type: 'text', text: JSON.stringify(DATA, null, 2) }] }, meta)).handle;
});
afterEach(async () => {
  await store.close();
  await rm(root, { recursive: true, force: true });
});

async function read(args: Record<string, unknown>, maxOutputTokens?: number, deadlineMs?: number): Promise<{ text: string; isError: boolean }> {
  const result = await readResult(store, counter, args, { maxOutputTokens, deadlineMs });
  const first = result.content[0];
  return { text: first?.type === 'text' ? first.text : '', isError: result.isError === true };
}

describe('READ_RESULT_TOOL', () => {
  it('is a valid tool definition naming every op', () => {
    expect(READ_RESULT_TOOL.name).toBe(READ_RESULT_TOOL_NAME);
    expect(READ_RESULT_TOOL.inputSchema.required).toEqual(['handle', 'op']);
    expect(READ_RESULT_TOOL.inputSchema.properties.op.enum).toEqual(['stat', 'head', 'tail', 'slice', 'grep', 'query', 'read']);
  });
});

describe('readResult ops', () => {
  it('stat: sizes, lines, tokens, type', async () => {
    const { text, isError } = await read({ handle: logHandle, op: 'stat' });
    expect(isError).toBe(false);
    expect(text).toContain(`Handle: ${logHandle}`);
    expect(text).toContain('Lines: 1,000');
    expect(text).toContain('Content type: text');
    expect(text).toContain('Tokens: not counted');
    const json = await read({ handle: jsonHandle, op: 'stat' });
    expect(json.text).toContain('Content type: json');
    expect(json.text).toContain('JSON top-level keys:');
    expect(json.text).toContain('"items": array of 3');
    expect(json.text).toContain('"odd key": object with 1 key {deep}');
  });

  it('head and tail, 50 lines by default', async () => {
    const head = await read({ handle: logHandle, op: 'head' });
    expect(head.text.split('\n')[0]).toBe('Lines 1-50 of 1,000:');
    expect(head.text.split('\n')[1]).toBe('1 ERROR disk full request=0');
    expect(head.text.split('\n')).toHaveLength(51);
    const tail = await read({ handle: logHandle, op: 'tail', lines: 3 });
    expect(tail.text).toBe('Lines 998-1,000 of 1,000:\n998 INFO ok request=997\n999 INFO ok request=998\n1000 INFO ok request=999');
  });

  it('slice: 1-based inclusive line range, clamped at the end', async () => {
    expect((await read({ handle: logHandle, op: 'slice', start: 101, end: 102 })).text).toBe(
      'Lines 101-102 of 1,000:\n101 ERROR disk full request=100\n102 INFO ok request=101',
    );
    expect((await read({ handle: logHandle, op: 'slice', start: 999, end: 5000 })).text.split('\n')[0]).toBe('Lines 999-1,000 of 1,000:');
    expect(await read({ handle: logHandle, op: 'slice', start: 2000 })).toMatchObject({
      isError: true,
      text: expect.stringContaining('past the end'),
    });
    expect(await read({ handle: logHandle, op: 'slice' })).toMatchObject({ isError: true, text: expect.stringContaining('needs `start`') });
    expect(await read({ handle: logHandle, op: 'slice', start: 5, end: 2 })).toMatchObject({ isError: true });
  });

  it('grep: case-insensitive by default, line numbers, context, a cap on matches', async () => {
    const all = await read({ handle: logHandle, op: 'grep', pattern: 'error' });
    expect(all.text.split('\n')[0]).toBe('grep /error/i: 10 matching lines of 1,000:');
    expect(all.text).toContain('\n1:1 ERROR disk full request=0');
    expect(all.text).toContain('\n901:901 ERROR disk full request=900');
    expect((await read({ handle: logHandle, op: 'grep', pattern: 'error', caseSensitive: true })).text).toBe(
      'grep /error/: 0 matching lines of 1,000.',
    );
    const ctx = await read({ handle: logHandle, op: 'grep', pattern: 'request=100$', context: 1 });
    expect(ctx.text).toBe(
      'grep /request=100$/i: 1 matching line of 1,000:\n100-100 INFO ok request=99\n101:101 ERROR disk full request=100\n102-102 INFO ok request=101',
    );
    const capped = await read({ handle: logHandle, op: 'grep', pattern: 'ERROR', maxMatches: 2, context: 1 });
    expect(capped.text.split('\n')[0]).toBe(
      'grep /ERROR/i: 10 matching lines of 1,000, showing the first 2 (raise maxMatches or narrow the pattern for more).',
    );
    expect(capped.text).toContain('\n--\n');
    expect(capped.text.split('\n').filter((l) => /^\d+:/.test(l))).toHaveLength(2);
  });

  it('grep: a bad regex is an isError result', async () => {
    const bad = await read({ handle: logHandle, op: 'grep', pattern: '(unclosed' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/^Bad regular expression "\(unclosed": /);
    expect((await read({ handle: logHandle, op: 'grep' })).isError).toBe(true);
  });

  it.each([
    ['.items | filter(.status == "error") | map(.name)', ['beta', 'gamma']],
    ['.items.0.name', 'alpha'],
    ['$.items[1].name', 'beta'],
    ['.items[2].id', 3],
    ["$['odd key'].deep[1]", 20],
    ['$', DATA],
    ['.items | size()', 3],
  ])('query %s', async (query, expected) => {
    const { text, isError } = await read({ handle: jsonHandle, op: 'query', query });
    expect(isError).toBe(false);
    expect(answerOf(text.slice(text.indexOf('\n') + 1))).toEqual(expected);
  });

  it('query: bad queries, non-JSON results and no match', async () => {
    const bad = await read({ handle: jsonHandle, op: 'query', query: '.items | filter(' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/^Bad query/);
    const unknownFn = await read({ handle: jsonHandle, op: 'query', query: 'nosuchfunction()' });
    expect(unknownFn.isError).toBe(true);
    const notJson = await read({ handle: logHandle, op: 'query', query: '.a' });
    expect(notJson).toMatchObject({ isError: true, text: expect.stringContaining('not JSON') });
    expect((await read({ handle: jsonHandle, op: 'query', query: '.missing' })).text).toContain('nothing matched');
  });

  it('read: from an offset, capped by maxTokens, telling the next offset', async () => {
    const first = await read({ handle: logHandle, op: 'read', maxTokens: 100 });
    const chunk = first.text.slice(0, first.text.lastIndexOf('\n['));
    expect(LOG.startsWith(chunk)).toBe(true);
    expect(await counter.count(chunk)).toBeLessThanOrEqual(100);
    const next = Number(/"offset":(\d+)/.exec(first.text)![1]);
    expect(next).toBe(chunk.length);
    const second = await read({ handle: logHandle, op: 'read', offset: next, maxTokens: 100 });
    expect(LOG.slice(next).startsWith(second.text.slice(0, second.text.lastIndexOf('\n[')))).toBe(true);
    const end = await read({ handle: logHandle, op: 'read', offset: LOG.length - 10 });
    expect(end.text).toContain('[end of text');
    expect((await read({ handle: logHandle, op: 'read', offset: LOG.length + 1 })).isError).toBe(true);
  });

  it('caps its own output and says how to narrow the request', async () => {
    const { text, isError } = await read({ handle: logHandle, op: 'slice', start: 1, end: 1000 }, 300);
    expect(isError).toBe(false);
    expect(text).toMatch(/\[output capped at 300 tokens; ask for fewer lines/);
    expect(await counter.count(text)).toBeLessThan(340);
    const grep = await read({ handle: logHandle, op: 'grep', pattern: 'INFO', maxMatches: 1000 }, 200);
    expect(grep.text).toMatch(/output capped at 200 tokens; use a more specific pattern/);
  });
});

describe('readResult errors', () => {
  it.each([
    [{ handle: '../etc/passwd', op: 'head' }, /not a spill handle/],
    [{ handle: 'abcdefghijkl', op: 'head' }, /No spilled result has the handle "abcdefghijkl"/],
    [{ handle: 'abcdefghijkl', op: 'explode' }, /Invalid arguments.*op/],
    [{ op: 'head' }, /Invalid arguments.*handle/],
    [{ handle: 'abcdefghijkl', op: 'head', lines: -1 }, /lines/],
    [{ handle: 'abcdefghijkl', op: 'head', extra: 1 }, /Invalid arguments/],
    [null, /Invalid arguments/],
  ])('%j', async (args, message) => {
    const result = await readResult(store, counter, args);
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toMatch(message);
  });

  it('refuses an expired handle', async () => {
    clock += 25 * 3_600_000;
    const { text, isError } = await read({ handle: logHandle, op: 'head' });
    expect(isError).toBe(true);
    expect(text).toMatch(/expired at 2026-01-02T00:00:00.000Z/);
  });
});

describe('readSpillResource', () => {
  it('returns the text view with its mime type', async () => {
    const uri = `spillway://spill/${jsonHandle}`;
    expect(isSpillUri(uri)).toBe(true);
    const { contents } = await readSpillResource(store, uri);
    expect(contents).toEqual([{ uri, mimeType: 'application/json', text: JSON.stringify(DATA, null, 2) }]);
    expect((await readSpillResource(store, `spillway://spill/${logHandle}`)).contents[0]).toMatchObject({ mimeType: 'text/plain', text: LOG });
  });

  it('returns binary blocks as blobs', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 9, 9, 9]).toString('base64');
    const wav = Buffer.from('RIFF....WAVE').toString('base64');
    const result: CallToolResult = {
      content: [
        { type: 'image', data: png, mimeType: 'image/png' },
        { type: 'audio', data: wav, mimeType: 'audio/wav' },
      ],
    };
    const entry = await store.put(result, meta);
    expect(entry.contentType).toBe('binary');
    const { contents } = await readSpillResource(store, `spillway://spill/${entry.handle}`);
    expect(contents).toEqual([
      { uri: `spillway://spill/${entry.handle}#block-0`, mimeType: 'image/png', blob: png },
      { uri: `spillway://spill/${entry.handle}#block-1`, mimeType: 'audio/wav', blob: wav },
    ]);
  });

  it('tells a result whose files are gone as no longer kept, without a path (audit s12), and drops it', async () => {
    await rm(join(store.dir, logHandle), { recursive: true });
    const failed = await readSpillResource(store, `spillway://spill/${logHandle}`).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(SpillResourceError);
    expect((failed as Error).message).toBe(handleMessages.unknown(logHandle));
    expect(store.list().map((e) => e.handle)).not.toContain(logHandle);
  });

  it.each(['spillway://spill/../../etc/passwd', 'spillway://spill/abcdefghijkl', 'file:///etc/passwd', 'spillway://spill/'])(
    'refuses %s',
    async (uri) => {
      await expect(readSpillResource(store, uri)).rejects.toBeInstanceOf(SpillResourceError);
    },
  );
});

describe('toJsonQuery', () => {
  it.each([
    ['$.a.b[0]', ['get', 'a', 'b', 0]],
    ['$', ['get']],
    ['.a[2]', ['get', 'a', 2]],
    ['$["x y"].z', ['get', 'x y', 'z']],
    ['.a.b', '.a.b'],
    ['.items | size()', '.items | size()'],
    ['$.a[*]', '$.a[*]'],
  ])('%s', (query, expected) => {
    expect(toJsonQuery(query)).toEqual(expected);
  });
});

describe('regular expressions run in linear time (issue 13, item 10)', () => {
  /** A result holding the inputs: 42 a's and a "!", a 40-hex hash, and ordinary lines. */
  const TRAPS = ['first line', `${'a'.repeat(42)}!`, 'b5f0c3a9e1d2f4a6b8c0d2e4f6a8b0c2d4e6f8a0', 'aaaa', 'Last Line'].join('\n');
  const RECORDS = { items: [{ name: 'aaaaaaaa' }, { name: `${'a'.repeat(42)}!` }, { name: 'Alpha-7 beta-8' }, { name: 12 }] };
  let traps: string;
  let records: string;
  beforeEach(async () => {
    traps = (await store.put({ content: [{ type: 'text', text: TRAPS }] }, meta)).handle;
    records = (await store.put({ content: [{ type: 'text', text: JSON.stringify(RECORDS) }] }, meta)).handle;
  });

  it.each([
    ['(a|aa)+$', ['4:aaaa']],
    ['(\\w|\\w\\w)+$', ['1:first line', '3:b5f0c3a9e1d2f4a6b8c0d2e4f6a8b0c2d4e6f8a0', '4:aaaa', '5:Last Line']],
    ['(a+)+$', ['4:aaaa']],
    ['^(a|a?)+$', ['4:aaaa']],
  ])('grep %s: answered, with the lines a backtracking engine would find', async (pattern, lines) => {
    const { text, isError } = await read({ handle: traps, op: 'grep', pattern });
    expect(isError).toBe(false);
    expect(text.split('\n').slice(1)).toEqual(lines);
  });

  it('grep keeps JavaScript spellings and the case flag', async () => {
    const grep = async (pattern: string, caseSensitive?: boolean) =>
      (await read({ handle: traps, op: 'grep', pattern, caseSensitive })).text.split('\n').slice(1);
    expect(await grep('^last')).toEqual(['5:Last Line']);
    expect(await grep('^last', true)).toEqual([]);
    expect(await grep('^Last', true)).toEqual(['5:Last Line']);
    expect(await grep('(?<first>fir)st\\u0020l')).toEqual(['1:first line']);
    expect(await grep('\\u{21}$')).toEqual([`2:${'a'.repeat(42)}!`]);
    expect(await grep('(?<=a)!')).toEqual([`2:${'a'.repeat(42)}!`]);
    expect(await grep('(?<!first )line')).toEqual(['5:Last Line']);
  });

  it.each([
    ['a(?=!)', /^Bad regular expression "a\(\?=!\)": lookahead .* is not supported: patterns run on a linear-time engine/],
    ['a(?!b)', /lookahead .* not supported.*use a lookbehind/],
    ['(a)\\1', /backreferences \(\\1, \\k<name>\) are not supported/],
    ['(?<x>a)\\k<x>', /backreferences/],
    ['a{2000}', /invalid repeat count.*counts go up to 1000/],
    ['\\e', /invalid escape sequence.*RE2 syntax/],
  ])('grep %s is refused with a reason the model can act on', async (pattern, message) => {
    const { text, isError } = await read({ handle: traps, op: 'grep', pattern });
    expect(isError).toBe(true);
    expect(text).toMatch(message);
  });

  it("JSON Query's regex(), match() and matchAll() run on the same engine", async () => {
    const query = async (q: string) => {
      const { text, isError } = await read({ handle: records, op: 'query', query: q });
      if (isError) return text;
      const body = text.slice(text.indexOf('\n') + 1);
      return body.startsWith('null\n') ? null : answerOf(body);
    };
    expect(await query('.items | filter(regex(.name, "(a+)+$")) | map(.name)')).toEqual(['aaaaaaaa']);
    expect(await query('.items | filter(regex(.name, "^(a|aa)+$")) | size()')).toBe(1);
    expect(await query('.items | filter(regex(.name, "^alpha")) | size()')).toBe(0);
    expect(await query('.items | filter(regex(.name, "^alpha", "i")) | size()')).toBe(1);
    // A number is tested as its text, as RegExp.test does.
    expect(await query('.items | filter(regex(.name, "^1\\\\d$")) | size()')).toBe(1);
    expect(await query('.items.2 | match(.name, "(?<word>[a-z]+)-(\\\\d)", "i")')).toEqual({
      value: 'Alpha-7',
      groups: ['Alpha', '7'],
      namedGroups: { word: 'Alpha' },
    });
    expect(await query('.items.2 | match(.name, "[a-z]+", "gi")')).toEqual({ value: 'Alpha', groups: ['beta'] });
    expect(await query('.items.2 | match(.name, "z")')).toBeNull();
    expect(await query('.items.2 | matchAll(.name, "([a-z]+)-\\\\d")')).toEqual([
      { value: 'lpha-7', groups: ['lpha'] },
      { value: 'beta-8', groups: ['beta'] },
    ]);
    expect(await query('.items | filter(regex(.name, "a(?=!)"))')).toMatch(/^Bad regular expression in query .*lookahead/);
    expect(await query('.items | filter(regex(.name, "a", "y"))')).toMatch(/flag "y" is not supported \(anchor the pattern with \^ instead\)/);
    expect(await query('.items | map(matchAll(.name, "a"))')).toMatch(/^Bad query .*matchAll\(\) needs a string, got number/);
  });

  it('a pattern that is linear but slow is cut off at the deadline with an isError', async () => {
    // Each character of this line keeps ~500 automaton states alive: ~2.5 s per megabyte on re2js.
    let seed = 7;
    const ab = Array.from({ length: 300_000 }, () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 0x100 ? 'a' : 'b')).join('');
    const big = (await store.put({ content: [{ type: 'text', text: `header\n${ab}\n` }] }, meta)).handle;
    const grep = await read({ handle: big, op: 'grep', pattern: 'a[ab]{500}[^ab]' }, undefined, 100);
    expect(grep.isError).toBe(true);
    expect(grep.text).toMatch(
      /^grep "a\[ab\]\{500\}\[\^ab\]" was stopped after 100 ms without finishing \(2 lines, 300,008 characters\): use a simpler/,
    );
    const json = (await store.put({ content: [{ type: 'text', text: JSON.stringify({ s: ab }) }] }, meta)).handle;
    const query = await read({ handle: json, op: 'query', query: 'regex(.s, "a[ab]{500}[^ab]")' }, undefined, 100);
    expect(query.isError).toBe(true);
    expect(query.text).toMatch(/^Query .* was stopped after 100 ms without finishing: filter earlier/);
    // The engine is left usable.
    expect((await read({ handle: big, op: 'grep', pattern: 'header' })).text).toContain('1:header');
  });
});

/** A query's answer: pretty JSON, or (tabular answers in 'auto', issue 18) TOON with its note line, decoded. */
function answerOf(body: string): unknown {
  const note = body.lastIndexOf('\n[shown as TOON');
  return note === -1 ? JSON.parse(body) : decode(body.slice(0, note));
}
