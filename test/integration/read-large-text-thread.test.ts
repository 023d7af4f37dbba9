/**
 * read_result on the largest spilled texts runs on the read thread (audit s12: each read of a 51 MB JSON
 * held the hub's main thread for ~0.9 s, re-reading and re-parsing it every time): the main thread never
 * parses or splits such a text, the answers are those the main thread gives, and files gone from under
 * the store are told as the handle's plain message, never a file path.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import { handleMessages, SpillStore } from '../../electron/core/spill/spill-store.js';
import { OFF_THREAD_ABOVE_BYTES, readResult, type ReadResultOptions } from '../../electron/core/spill/read-result.js';
import { ReadThread } from '../../electron/core/spill/read-thread-host.js';

const counter = new TokenCounter();
const thread = new ReadThread();
afterAll(async () => {
  await thread.close();
  await counter.close();
});

let root: string;
let store: SpillStore;
const meta = { server: 'fs', tool: 'list' };
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-read-thread-'));
  store = await SpillStore.open({ dir: join(root, 'spill'), now: Date.now, counter });
});
afterEach(async () => {
  await store.close();
  await rm(root, { recursive: true, force: true });
});

// Just over the line: ~7 MB each.
const ROWS = Array.from({ length: 55_000 }, (_, i) => ({ id: i, name: `item ${i}`, path: `/some/where/${i}`, size: i * 7, tags: ['a', 'b'] }));
const TABLE = JSON.stringify(ROWS, null, 1);
const LOG =
  Array.from({ length: 160_000 }, (_, i) => `line ${i} ${i % 1000 === 0 ? 'ERROR disk full' : 'INFO ok'} 🙂 request=${i}`).join('\n') + '\n';

async function put(text: string): Promise<string> {
  const entry = await store.put({ content: [{ type: 'text', text }] }, meta);
  expect(entry.textBytes).toBeGreaterThan(OFF_THREAD_ABOVE_BYTES);
  return entry.handle;
}

async function read(args: Record<string, unknown>, options: ReadResultOptions = {}): Promise<CallToolResult> {
  return readResult(store, counter, args, { thread, ...options });
}

const textOf = (result: CallToolResult): string => (result.content[0] as { text: string }).text;

describe('read_result on a large text', () => {
  it('never parses or splits it on the main thread, and answers from the read thread', async () => {
    const handle = await put(TABLE);
    const big: string[] = [];
    const parse = JSON.parse;
    const split = String.prototype.split;
    JSON.parse = (text: string, reviver?: (key: string, value: unknown) => unknown): unknown => {
      if (text.length > 1_000_000) big.push(`JSON.parse of ${text.length} characters`);
      return parse(text, reviver) as unknown;
    };
    String.prototype.split = function (this: string, ...args: Parameters<typeof split>) {
      if (this.length > 1_000_000) big.push(`split of ${this.length} characters`);
      return split.apply(this, args);
    } as typeof split;
    let answers: string[];
    try {
      answers = await Promise.all(
        [{ op: 'stat' }, { op: 'head', lines: 3 }, { op: 'tail', lines: 2 }, { op: 'query', query: '$[54321].name' }].map(async (args) =>
          textOf(await read({ handle, ...args })),
        ),
      );
    } finally {
      JSON.parse = parse;
      String.prototype.split = split;
    }
    expect(big).toEqual([]);
    expect(thread.running).toBe(true);
    expect(answers[0]).toContain('JSON: array of 55,000 items');
    expect(answers[1]).toMatch(/^\[Lines of the result as JSON: it is too large to turn into TOON[^\n]*\nLines 1-3 of /);
    expect(answers[2]).toMatch(/\nLines 550,001-550,002 of 550,002:\n }\n]$/);
    expect(answers[3]).toBe('Query "$[54321].name":\n"item 54321"');
  });

  it('gives every op the answer the main thread gives', async () => {
    const table = await put(TABLE);
    const log = await put(LOG);
    const asks: Array<Record<string, unknown>> = [
      { handle: table, op: 'stat' },
      { handle: table, op: 'head' },
      { handle: table, op: 'tail', lines: 7 },
      { handle: table, op: 'slice', start: 1000, end: 1040 },
      { handle: table, op: 'slice', start: 999_999 },
      { handle: table, op: 'grep', pattern: 'item 4242\\b', context: 2 },
      { handle: table, op: 'grep', pattern: '(a' },
      { handle: table, op: 'query', query: '.[100:105]' },
      { handle: table, op: 'query', query: 'filter(.id < 40) | pick(.id, .name)' },
      { handle: table, op: 'query', query: 'map(.name)' },
      { handle: table, op: 'query', query: '$.nothing' },
      { handle: table, op: 'query', query: 'filter(' },
      { handle: table, op: 'read' },
      { handle: table, op: 'read', offset: 3_000_000, maxTokens: 500 },
      { handle: table, op: 'read', offset: 99_000_000 },
      { handle: log, op: 'stat' },
      { handle: log, op: 'head', lines: 20 },
      { handle: log, op: 'tail' },
      { handle: log, op: 'grep', pattern: 'error', maxMatches: 5, context: 1 },
      { handle: log, op: 'read', offset: 1_234_567, maxTokens: 3000 },
      { handle: log, op: 'query', query: '.a' },
    ];
    for (const args of asks) {
      const here = await read(args, { offThreadAboveBytes: Infinity });
      const there = await read(args);
      expect(there, JSON.stringify(args)).toEqual(here);
    }
    expect(thread.running).toBe(true);
  });
});

describe('a result whose files are gone', () => {
  it('is told as the handle no longer kept, without a path, and dropped from the store', async () => {
    const small = (await store.put({ content: [{ type: 'text', text: 'x\n'.repeat(1000) }] }, meta)).handle;
    const large = await put(LOG);
    for (const handle of [small, large]) {
      await rm(join(store.dir, handle), { recursive: true });
      const result = await read({ handle, op: 'head' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(handleMessages.unknown(handle));
      expect(textOf(result)).not.toContain(root);
      expect(store.list().map((e) => e.handle)).not.toContain(handle);
    }
  });
});
