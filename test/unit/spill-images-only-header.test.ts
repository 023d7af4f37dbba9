import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import { SpillStore } from '../../electron/core/spill/spill-store.js';
import { shapeResult } from '../../electron/core/spill/shape-result.js';
import { readResult } from '../../electron/core/spill/read-result.js';
import { readSpillResource } from '../../electron/core/spill/spill-resource.js';

const counter = new TokenCounter();
afterAll(() => counter.close());

let root: string;
let store: SpillStore;
const now = () => Date.UTC(2026, 0, 1, 12);
const ctx = { server: 'browser', tool: 'screenshots', client: 'cursor' };

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-images-only-'));
  store = await SpillStore.open({ dir: join(root, 'spill'), now, counter });
});
afterEach(async () => {
  await store.close();
  await rm(root, { recursive: true, force: true });
});

/** A PNG whose IHDR says 2000 x 2000 (what Spillway reads to count an image's tokens). */
function png(): string {
  const b = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12);
  b.writeUInt32BE(2000, 16);
  b.writeUInt32BE(2000, 20);
  b[24] = 8;
  b[25] = 2;
  return b.toString('base64');
}
const screenshots: CallToolResult = { content: Array.from({ length: 8 }, () => ({ type: 'image' as const, data: png(), mimeType: 'image/png' })) };

describe('the header of a spilled result that is only images', () => {
  it('suggests nothing that reads its empty text, and says how its images are read', async () => {
    const { delivered, outcome } = await shapeResult(screenshots, { action: 'spill', thresholdTokens: 2000, previewTokens: 300 }, ctx, {
      store,
      counter,
      now,
    });
    expect(outcome.action).toBe('spill');
    const header = (delivered.content[0] as { text: string }).text;
    const handle = (delivered._meta as Record<string, string>)['spillway/handle']!;
    expect(header).not.toMatch(/showing the first 0 tokens|"op":"(grep|slice|read|head|tail)"|Ops: /);
    expect(header).toContain('no text');
    expect(header).toContain(`resources/read spillway://spill/${handle}`);
    for (const m of header.matchAll(/\{"handle"[^\n]*\}/g)) {
      const answer = await readResult(store, counter, JSON.parse(m[0]) as Record<string, unknown>, {});
      expect((answer.content[0] as { text: string }).text).not.toMatch(/empty \(0 lines\)|0 matching lines|past the end/);
    }
    const whole = await readSpillResource(store, `spillway://spill/${handle}`);
    expect(whole.contents.map((c) => c.mimeType)).toEqual(Array(8).fill('image/png'));
  });
});
