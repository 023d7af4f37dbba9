/**
 * Audit s21 D1/D12: a text on one long line (minified JSON, as most APIs send it). grep said "1 matching line
 * of 1" and showed ~500 characters around the first match only, hiding the others with nothing said; tail
 * showed the start of the line, not its end. Now grep says how many matches a long line holds and shows each
 * (up to maxMatches) with the offset a read starts there from, and tail clips a long line from its end. Both
 * threads give the same answers: grep runs on the read thread, and on the main thread when a test asks.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import { SpillStore } from '../../electron/core/spill/spill-store.js';
import { readResult } from '../../electron/core/spill/read-result.js';
import { ReadThread } from '../../electron/core/spill/read-thread-host.js';
import { grepMatches, tailLines } from '../../electron/core/spill/read-ops.js';
import { SpillDocument } from '../../electron/core/spill/spill-document.js';

const counter = new TokenCounter();
afterAll(() => counter.close());

let root: string;
let store: SpillStore;
let thread: ReadThread;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-long-lines-'));
  store = await SpillStore.open({ dir: join(root, 'spill'), now: Date.now, counter });
  thread = new ReadThread();
});
afterEach(async () => {
  await thread.close();
  await store.close();
  await rm(root, { recursive: true, force: true });
});

const hex = (seed: number, n: number): string => ((seed + 1) * 2654435761).toString(16).repeat(n).slice(0, n);
// A GitHub-like issue list, minified: 400 issues on one line, 7 of them CLOSED (numbers 4, 61, ..., 346).
const ISSUES = Array.from({ length: 400 }, (_, i) => ({
  number: i + 1,
  title: `Issue ${i + 1}: ${hex(i, 24)}`,
  state: i % 57 === 3 ? 'CLOSED' : 'OPEN',
  user: { login: `user${i % 13}`, id: 1000 + i },
  labels: i % 3 ? [{ name: 'bug' }] : [],
  body: `Body of issue ${i + 1} ${hex(i + 7, 120)}`,
}));
const MINIFIED = JSON.stringify({ data: { repository: { issues: { nodes: ISSUES } } } });
const CLOSED = [4, 61, 118, 175, 232, 289, 346];

async function put(text: string): Promise<string> {
  return (await store.put({ content: [{ type: 'text', text }] }, { server: 's', tool: 't' })).handle;
}

/** The answer on the read thread (where grep runs), checked to be the one the main thread gives. */
async function read(args: Record<string, unknown>): Promise<string> {
  const text = (result: CallToolResult): string => {
    expect(result.isError, JSON.stringify(result)).not.toBe(true);
    return (result.content[0] as { text: string }).text;
  };
  const onThread = text(await readResult(store, counter, args, { thread }));
  const onMain = text(await readResult(store, counter, args, { thread, offThreadAboveBytes: Infinity }));
  expect(onMain).toBe(onThread);
  return onThread;
}

/** The offsets grep gives for the matches it shows, in order. */
const offsetsOf = (answer: string): number[] => [...answer.matchAll(/^\d+:\[offset (\d+)\] /gm)].map((m) => Number(m[1]));

describe('grep on a long line', () => {
  it('says how many matches the line holds and shows each, with the offset a read starts there from', async () => {
    const handle = await put(MINIFIED);
    const answer = await read({ handle, op: 'grep', pattern: '"state":"CLOSED"', caseSensitive: true });
    expect(answer.split('\n').slice(0, 2)).toEqual([
      'grep /"state":"CLOSED"/: 1 matching line of 1:',
      `1:[line 1 is ${MINIFIED.length.toLocaleString('en-US')} characters long and holds 7 matches, each shown below with the offset it starts at: read from there with {"op":"read","offset":<offset>}]`,
    ]);
    for (const n of CLOSED) expect(answer, `issue ${n}`).toContain(`"number":${n},`);
    const offsets = offsetsOf(answer);
    expect(offsets).toEqual([...MINIFIED.matchAll(/"state":"CLOSED"/g)].map((m) => m.index));
    for (const offset of offsets) {
      const at = await read({ handle, op: 'read', offset, maxTokens: 20 });
      expect(at.startsWith('"state":"CLOSED"')).toBe(true);
    }
  });

  it('shows at most maxMatches matches, saying how many more the line holds', async () => {
    const handle = await put(MINIFIED);
    const answer = await read({ handle, op: 'grep', pattern: '"state":"CLOSED"', maxMatches: 3 });
    expect(answer.split('\n')[1]).toMatch(
      /^1:\[line 1 is [\d,]+ characters long and holds 7 matches, the first 3 shown below \(raise maxMatches for more\), /,
    );
    expect(offsetsOf(answer)).toHaveLength(3);
    expect(answer).toContain('"number":118,');
    expect(answer).not.toContain('"number":175,');
  });

  it('gives offsets in the whole text for a long line after others (a CRLF line break counts two)', async () => {
    const long = `${'a'.repeat(1_000)} needle ${'b'.repeat(1_000)} needle ${'c'.repeat(1_000)}`;
    const text = `first\r\n😀 second\n${long}\r\nneedle short\n`;
    const handle = await put(text);
    const answer = await read({ handle, op: 'grep', pattern: 'needle' });
    expect(answer.split('\n')[0]).toBe('grep /needle/i: 2 matching lines of 4:');
    const offsets = offsetsOf(answer);
    expect(offsets).toEqual([text.indexOf(' needle') + 1, text.lastIndexOf(' needle ') + 1]);
    for (const offset of offsets) expect(text.slice(offset, offset + 6)).toBe('needle');
    // The short matching line is shown as it always was.
    expect(answer.split('\n').at(-1)).toBe('4:needle short');
  });

  it("of a TOON view's rows (no offset in the text) says where each match is in the line", () => {
    const view = new SpillDocument(`rows[1]{name}:\n  ${'z'.repeat(1_000)}hit${'z'.repeat(1_000)}\n`);
    const answer = grepMatches(view, { pattern: 'hit' }, { view: true }).text;
    expect(answer).not.toContain('"op":"read"');
    expect(answer.split('\n')[2]).toMatch(/^2:\[character 1002\] …z+hitz+…$/);
  });
});

describe('tail of a long line', () => {
  it('shows the end of the line, where the text ends, with the read that gives all of it', async () => {
    const handle = await put(MINIFIED);
    const answer = await read({ handle, op: 'tail', lines: 1 });
    expect(answer).toContain('"number":400,');
    expect(answer.endsWith(MINIFIED.slice(-1_000))).toBe(true);
    expect(answer).toContain(
      `[line clipped: ${MINIFIED.length.toLocaleString('en-US')} characters, its last 2,000 shown; read all of it from its start with {"op":"read","offset":0}]`,
    );
  });

  it("of a TOON view's row shows its end too, and says to query the row", () => {
    const view = new SpillDocument(`rows[1]{name}:\n  ${'z'.repeat(3_000)}END\n`);
    expect(tailLines(view, 1, { view: true })).toBe(
      `Lines 2-2 of 2:\n[line clipped: 3,005 characters, its last 2,000 shown; query its row for all of it] …${'z'.repeat(1_997)}END`,
    );
  });
});
