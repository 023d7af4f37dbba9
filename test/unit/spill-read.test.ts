import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import { SpillStore } from '../../electron/core/spill/spill-store.js';
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

async function read(args: Record<string, unknown>, maxOutputTokens?: number): Promise<{ text: string; isError: boolean }> {
  const result = await readResult(store, counter, args, { maxOutputTokens });
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

  it('grep: a pattern that can backtrack exponentially is refused before it runs', async () => {
    const evil = await read({ handle: logHandle, op: 'grep', pattern: '(a+)+$' });
    expect(evil.isError).toBe(true);
    expect(evil.text).toMatch(/repeated group with a repeat inside/);
    const fine = await read({ handle: logHandle, op: 'grep', pattern: '(ab)+|a+' });
    expect(fine.isError).toBeFalsy();
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
    expect(JSON.parse(text.slice(text.indexOf('\n') + 1))).toEqual(expected);
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
