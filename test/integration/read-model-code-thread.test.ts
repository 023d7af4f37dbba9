/**
 * A grep or a query runs what the model wrote, which can take up to its deadline on a small text too:
 * on the hub's main thread, each such request held every other call for as long, and several sent at once
 * for the sum (audit s13: five 1 MB greps, 10 s). They run on the read thread whatever the size, with the
 * answers the main thread gives, and a pattern or query past MAX_EXPRESSION_CHARS is refused before it runs.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import { SpillStore } from '../../electron/core/spill/spill-store.js';
import { MAX_EXPRESSION_CHARS, OFF_THREAD_ABOVE_BYTES, readResult, type ReadResultOptions } from '../../electron/core/spill/read-result.js';
import { ReadThread } from '../../electron/core/spill/read-thread-host.js';
import { longestStallDuring } from '../support/main-thread-stalls.js';

const counter = new TokenCounter();
afterAll(() => counter.close());

let root: string;
let store: SpillStore;
let thread: ReadThread;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-read-model-code-'));
  store = await SpillStore.open({ dir: join(root, 'spill'), now: Date.now, counter });
  thread = new ReadThread();
});
afterEach(async () => {
  await thread.close();
  await store.close();
  await rm(root, { recursive: true, force: true });
});

async function put(text: string): Promise<string> {
  const entry = await store.put({ content: [{ type: 'text', text }] }, { server: 's', tool: 't' });
  expect(entry.textBytes).toBeLessThanOrEqual(OFF_THREAD_ABOVE_BYTES);
  return entry.handle;
}

async function read(args: Record<string, unknown>, options: ReadResultOptions = {}): Promise<CallToolResult> {
  return readResult(store, counter, args, { thread, ...options });
}

const textOf = (result: CallToolResult): string => (result.content[0] as { text: string }).text;

// 1 MB: 200 lines of 5,000 a's and a b. `[a-z]{n}b` keeps an automaton of n states busy on each character.
const RUNS = Array.from({ length: 200 }, () => 'a'.repeat(5000) + 'b').join('\n') + '\n';
const STALL_BOUND_MS = 200;

describe('a grep or query that takes its whole deadline', () => {
  it('leaves the main thread free while three greps run at once, and is cut off as on the main thread', async () => {
    const handle = await put(RUNS);
    const greps = [998, 999, 1000].map((n) => ({ handle, op: 'grep', pattern: `[a-z]{${n}}b` }));
    let answers: CallToolResult[] = [];
    const stall = await longestStallDuring(async () => {
      answers = await Promise.all(greps.map((args) => read(args, { deadlineMs: 500 })));
    });
    expect(stall).toBeLessThan(STALL_BOUND_MS); // on the main thread: three deadlines back to back, ~1,500 ms
    expect(thread.running).toBe(true);
    for (const answer of answers) {
      expect(answer.isError).toBe(true);
      expect(textOf(answer)).toMatch(/^grep "\[a-z\]\{\d+\}b" was stopped after 500 ms without finishing \(200 lines, 1,000,400 characters\)/);
    }
    expect(await read(greps[2]!, { deadlineMs: 500, offThreadAboveBytes: Infinity })).toEqual(answers[2]);
  }, 30_000);

  it('leaves the main thread free while a slow query runs', async () => {
    const handle = await put(JSON.stringify({ items: Array.from({ length: 400 }, (_, id) => ({ id, name: 'ab'.repeat(5000) })) }));
    let answer: CallToolResult | undefined;
    const stall = await longestStallDuring(async () => {
      // Four million one-letter strings, sorted.
      answer = await read({ handle, op: 'query', query: '.items | map(split(.name, "")) | flatten() | sort() | size()' }, { deadlineMs: 600 });
    });
    expect(stall).toBeLessThan(STALL_BOUND_MS); // on the main thread: its deadline, 600 ms
    expect(answer!.isError).toBe(true);
    expect(textOf(answer!)).toMatch(/^Query ".*" was stopped after 600 ms without finishing/);
  }, 30_000);
});

describe('grep and query on a small result', () => {
  const LOG = Array.from({ length: 500 }, (_, i) => `${i + 1} ${i % 50 === 0 ? 'ERROR disk full' : 'INFO ok'} 🙂 request=${i}`).join('\r\n') + '\r\n';
  const DATA = { items: Array.from({ length: 60 }, (_, id) => ({ id, name: `item ${id}`, status: id % 7 === 0 ? 'error' : 'ok' })) };

  it('run on the read thread, with the answers the main thread gives', async () => {
    const log = await put(LOG);
    const json = await put(JSON.stringify(DATA, null, 2));
    const asks: Array<Record<string, unknown>> = [
      { handle: log, op: 'grep', pattern: 'error', context: 1, maxMatches: 3 },
      { handle: log, op: 'grep', pattern: 'ERROR', caseSensitive: true },
      { handle: log, op: 'grep', pattern: 'nothing here' },
      { handle: log, op: 'grep', pattern: '(a' },
      { handle: log, op: 'grep', pattern: 'a(?=b)' },
      { handle: log, op: 'query', query: '.a' },
      { handle: json, op: 'query', query: '.items | filter(.status == "error") | pick(.id, .name)' },
      { handle: json, op: 'query', query: '$.items[3].name' },
      { handle: json, op: 'query', query: '.items | map(.name)' },
      { handle: json, op: 'query', query: '$.nothing' },
      { handle: json, op: 'query', query: 'filter(' },
      { handle: json, op: 'query', query: '.items | filter(regex(.name, "^item 1")) | size()' },
      { handle: json, op: 'grep', pattern: '"id": 4\\d', context: 2 },
    ];
    const sent = vi.spyOn(thread, 'read');
    const here: CallToolResult[] = [];
    for (const args of asks) here.push(await read(args, { offThreadAboveBytes: Infinity }));
    expect(sent).not.toHaveBeenCalled();
    expect(thread.running).toBe(false);
    for (const [i, args] of asks.entries()) {
      const there = await read(args);
      expect(sent, JSON.stringify(args)).toHaveBeenCalledTimes(i + 1);
      expect(there, JSON.stringify(args)).toEqual(here[i]);
    }
  }, 60_000);

  it('refuse a pattern or query past the most it takes, in words, before running it', async () => {
    const handle = await put('{"a":[1,2,3]}');
    const query = '.a' + ' | get()'.repeat(20_000); // JSON Query's parser spends ~1.3 s on this
    const pattern = 'x|'.repeat(MAX_EXPRESSION_CHARS / 2) + 'a';
    const refusedQuery = await read({ handle, op: 'query', query });
    const refusedPattern = await read({ handle, op: 'grep', pattern });
    expect(refusedQuery).toEqual({
      isError: true,
      content: [
        {
          type: 'text',
          text: 'The query is 160,002 characters long; the most is 10,000: write a shorter one, or run several queries one after another.',
        },
      ],
    });
    expect(textOf(refusedPattern)).toBe(
      'The pattern is 10,001 characters long; the most is 10,000: search for a shorter part of what you want (one word or id finds its lines).',
    );
    expect(thread.running).toBe(false);
    // At the most, each runs.
    expect(textOf(await read({ handle, op: 'grep', pattern: pattern.slice(1) }))).toMatch(/^grep \/\|x\|x.*: 1 matching line of 1:\n1:\{"a"/);
  });
});
