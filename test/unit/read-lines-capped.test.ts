/**
 * head, tail and slice answers past the output cap keep whole lines, tail its last ones, under a header
 * naming the lines shown (audit s15: tail kept the start, and "Lines a-b" named lines left out).
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import { SpillStore } from '../../electron/core/spill/spill-store.js';
import { readResult } from '../../electron/core/spill/read-result.js';

const counter = new TokenCounter();
afterAll(() => counter.close());

/** 300 lines of ~200 characters of hex: 20 of them are ~2,000 tokens. */
const LOG =
  Array.from({ length: 300 }, (_, i) => `${String(i + 1).padStart(3, '0')} ${((i + 1) * 2654435761).toString(16).repeat(24)}`).join('\n') + '\n';

let root: string;
let store: SpillStore;
let handle: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-capped-'));
  store = await SpillStore.open({ dir: join(root, 'spill'), now: () => Date.UTC(2026, 0, 1), counter });
  handle = (await store.put({ content: [{ type: 'text', text: LOG }] }, { server: 'fs', tool: 'tail' })).handle;
});
afterEach(async () => {
  await store.close();
  await rm(root, { recursive: true, force: true });
});

async function read(args: Record<string, unknown>): Promise<string> {
  const result = await readResult(store, counter, { handle, ...args }, { maxOutputTokens: 1_000, offThreadAboveBytes: Infinity });
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

/** The header's range and the lines under it (up to the cap's note). */
function parts(text: string): { from: number; to: number; lines: string[]; note: string } {
  const m = /^Lines (\d+)-(\d+) of 300:\n/.exec(text)!;
  const [body, note = ''] = text.slice(m[0].length).split('\n[output capped');
  return { from: Number(m[1]), to: Number(m[2]), lines: body!.split('\n'), note };
}

describe('a capped line answer', () => {
  it('tail shows the last lines asked for, whole, and says how to read the ones before', async () => {
    const { from, to, lines, note } = parts(await read({ op: 'tail', lines: 100 }));
    expect(to).toBe(300);
    expect(from).toBeGreaterThan(201);
    expect(lines).toHaveLength(to - from + 1);
    expect(lines[0]!.startsWith(`${from} `)).toBe(true);
    expect(lines.at(-1)).toBe(LOG.split('\n')[299]);
    expect(note).toContain(`of the 100 asked for are shown (whole lines); the lines before them: {"op":"slice","start":201,"end":${from - 1}}]`);
  });

  it('head and slice show whole lines from the start, under a header naming them', async () => {
    for (const args of [
      { op: 'head', lines: 100 },
      { op: 'slice', start: 11, end: 110 },
    ]) {
      const first = args.op === 'head' ? 1 : 11;
      const { from, to, lines, note } = parts(await read(args));
      expect(from).toBe(first);
      expect(to).toBeLessThan(first + 99);
      expect(lines).toEqual(LOG.split('\n').slice(first - 1, to));
      expect(note).toContain(`{"op":"slice","start":${to + 1},"end":${first + 99}}]`);
    }
  });

  it('an answer within the cap is whole, with no note', async () => {
    expect(await read({ op: 'tail', lines: 3 })).toBe(`Lines 298-300 of 300:\n${LOG.split('\n').slice(297, 300).join('\n')}`);
  });
});
