/**
 * Audit s21 D2: a head, tail or slice with "view":"json" cut at the output cap said how to read on with a
 * slice that did not name the view, so following it read the TOON view's lines: the JSON lines between
 * were silently skipped. The continuation now names the view it was made in.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import { SpillStore } from '../../electron/core/spill/spill-store.js';
import { readResult } from '../../electron/core/spill/read-result.js';
import { ReadThread } from '../../electron/core/spill/read-thread-host.js';

// The table's TOON view is given up on after TOON_DEADLINE_MS (500 ms) on the main thread, and its JSON lines
// read: a loaded machine takes that long, and then no view differs from "view":"json" and the test shows
// nothing. That bound is not what this file tests: views made here get one a loaded machine meets.
vi.mock('../../electron/core/spill/read-encoding.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../electron/core/spill/read-encoding.js')>();
  const unhurried = { maxChars: real.TOON_VIEW_MAX_CHARS, deadlineMs: 60_000 };
  return {
    ...real,
    linesView: (...[doc, encoding, counter, limits]: Parameters<typeof real.linesView>) =>
      real.linesView(doc, encoding, counter, limits ?? unhurried),
  };
});

const counter = new TokenCounter();
afterAll(() => counter.close());

let root: string;
let store: SpillStore;
let thread: ReadThread;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-view-continuation-'));
  store = await SpillStore.open({ dir: join(root, 'spill'), now: Date.now, counter });
  thread = new ReadThread();
});
afterEach(async () => {
  await thread.close();
  await store.close();
  await rm(root, { recursive: true, force: true });
});

// A table as many servers print it (pretty JSON array of flat records): its lines are read on its TOON view.
const ROWS = Array.from({ length: 3_000 }, (_, i) => ({ id: i + 1, name: `row ${i + 1}`, status: i % 97 === 0 ? 'error' : 'ok', size: i * 13 }));
const TABLE = JSON.stringify(ROWS, null, 2);
const JSON_LINES = TABLE.split('\n');

async function put(text: string): Promise<string> {
  return (await store.put({ content: [{ type: 'text', text }] }, { server: 's', tool: 't' })).handle;
}

async function read(args: Record<string, unknown>): Promise<string> {
  const result: CallToolResult = await readResult(store, counter, args, { thread });
  expect(result.isError, JSON.stringify(result)).not.toBe(true);
  return (result.content[0] as { text: string }).text;
}

/** The continuation a capped answer names, and the lines ("Lines a-b") it showed. */
function continuationOf(answer: string): { next: Record<string, unknown>; first: number; last: number } {
  const note = /\[output capped[^\n]*\]$/.exec(answer)?.[0];
  expect(note, answer.slice(-300)).toBeDefined();
  const next = JSON.parse(/\{"op":"slice"[^}]*\}/.exec(note!)![0]) as Record<string, unknown>;
  const [, first, last] = /\nLines ([\d,]+)-([\d,]+) of/.exec(answer)!;
  return { next, first: Number(first!.replace(/,/g, '')), last: Number(last!.replace(/,/g, '')) };
}

/** The text lines of an answer: neither its notes nor its "Lines a-b" header. */
const bodyOf = (answer: string): string[] => answer.split('\n').filter((l) => !l.startsWith('[') && !l.startsWith('Lines '));

describe('a "view":"json" answer cut at the output cap', () => {
  it('slice: the continuation names the view, and following it reads on in the JSON lines', async () => {
    const handle = await put(TABLE);
    // Without the view, these lines are the TOON view's: the continuation must name the view to stay in the JSON.
    expect((await read({ handle, op: 'head', lines: 1 })).split('\n')[0]).toMatch(/^\[Lines of the result as TOON/);
    const first = await read({ handle, op: 'slice', start: 1, end: 3_000, view: 'json' });
    const { next, last } = continuationOf(first);
    expect(next).toEqual({ op: 'slice', start: last + 1, end: 3_000, view: 'json' });
    const cont = await read({ handle, ...next });
    expect(cont).toContain(`Lines ${(last + 1).toLocaleString('en-US')}-`);
    expect(bodyOf(cont)[0]).toBe(JSON_LINES[last]);
  });

  it('head: the rest is read in the JSON lines', async () => {
    const handle = await put(TABLE);
    const first = await read({ handle, op: 'head', lines: 3_000, view: 'json' });
    const { next, last } = continuationOf(first);
    expect(next).toEqual({ op: 'slice', start: last + 1, end: 3_000, view: 'json' });
    expect(bodyOf(await read({ handle, ...next }))[0]).toBe(JSON_LINES[last]);
  });

  it('tail: the lines before the ones shown are read in the JSON lines', async () => {
    const handle = await put(TABLE);
    const first = await read({ handle, op: 'tail', lines: 3_000, view: 'json' });
    const { next, first: shownFirst } = continuationOf(first);
    const asked = JSON_LINES.length - 3_000 + 1;
    expect(next).toEqual({ op: 'slice', start: asked, end: shownFirst - 1, view: 'json' });
    const before = bodyOf(await read({ handle, ...next, start: shownFirst - 1 }));
    expect(before).toEqual([JSON_LINES[shownFirst - 2]]);
  });

  it('without "view":"json" the continuation is as it was: the TOON view, named by no view', async () => {
    const handle = await put(TABLE);
    const first = await read({ handle, op: 'slice', start: 1, end: 3_000 });
    expect(first.split('\n')[0]).toMatch(/^\[Lines of the result as TOON/);
    const { next, last } = continuationOf(first);
    expect(next).toEqual({ op: 'slice', start: last + 1, end: 3_000 });
  });
});
