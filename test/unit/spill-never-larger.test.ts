/**
 * Issue 14, item 5: a preview not below its threshold must never make a result cost the model more
 * than the result itself. Real tokenizer, real spill store, real spooled texts.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import { SpillStore } from '../../electron/core/spill/spill-store.js';
import { shapeResult } from '../../electron/core/spill/shape-result.js';
import type { ShapePolicy } from '../../electron/core/spill/shape-decision.js';
import { RawTexts } from '../../electron/core/spill/raw-texts.js';
import { RawMessageSpool } from '../../electron/core/wire/raw-spool.js';

const counter = new TokenCounter();
afterAll(() => counter.close());

let root: string;
let store: SpillStore;
const now = () => Date.UTC(2026, 0, 1, 12);
const ctx = { server: 'fs', tool: 'read_file', client: 'cursor' };

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-never-larger-'));
  store = await SpillStore.open({ dir: join(root, 'spill'), now, counter });
});
afterEach(async () => {
  await store.close();
  await rm(root, { recursive: true, force: true });
});

const text = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }] });
const logLines = (n: number) =>
  Array.from({ length: n }, (_, i) => `2026-01-01 12:00:${String(i % 60).padStart(2, '0')} INFO request ${i} served in ${i % 97} ms`).join('\n');
/** 1,319 tokens: about the result of the issue. */
const body = logLines(60);

describe('a result never reaches the model larger than it came', () => {
  const cases: Array<[string, ShapePolicy, 'pass' | 'spill' | 'truncate']> = [
    ['spill, preview 5,000 over threshold 100', { action: 'spill', thresholdTokens: 100, previewTokens: 5000 }, 'pass'],
    ['truncate, preview 5,000 over threshold 100', { action: 'truncate', thresholdTokens: 100, previewTokens: 5000 }, 'pass'],
    ['compress, preview 5,000 over threshold 100', { action: 'compress', thresholdTokens: 100, previewTokens: 5000 }, 'pass'],
    ['spill, a preview close to the whole', { action: 'spill', thresholdTokens: 100, previewTokens: 1250 }, 'pass'],
    ['spill, a preview that still saves', { action: 'spill', thresholdTokens: 100, previewTokens: 1000 }, 'spill'],
    ['spill, a sensible preview', { action: 'spill', thresholdTokens: 100, previewTokens: 100 }, 'spill'],
    ['truncate, a sensible preview', { action: 'truncate', thresholdTokens: 100, previewTokens: 100 }, 'truncate'],
  ];
  it.each(cases)('%s → %s', async (_name, policy, action) => {
    const original = await counter.count(body);
    const { delivered, outcome } = await shapeResult(text(body), policy, ctx, { store, counter, now });
    expect(outcome.action).toBe(action);
    const tokensDelivered = await outcome.tokensDelivered;
    expect(tokensDelivered).toBeLessThanOrEqual(original);
    if (action === 'pass') {
      expect(delivered).toEqual(text(body));
      expect(tokensDelivered).toBe(original);
      expect(outcome.tokensUpstream).toEqual({ tokens: original, estimated: false });
      expect(outcome.handle).toBeUndefined();
      expect(store.list()).toEqual([]);
    }
  });

  it('a text streamed to disk is read back and passed when its preview would not be smaller', async () => {
    const long = logLines(4000); // about 88K tokens, under the preview: on disk, as over 96 KiB
    const raw = await RawTexts.open({ dir: join(root, 'raw'), counter, previewTokens: () => 100_000 });
    try {
      const spool = new RawMessageSpool(raw.options);
      const line = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, result: text(long) }));
      for (let at = 0; at < line.length; at += 64 * 1024) spool.push(line.subarray(at, at + 64 * 1024));
      const { skeleton, strings } = spool.finish();
      raw.adopt(strings);
      const input = (JSON.parse(skeleton) as { result: CallToolResult }).result;
      expect(raw.holds(input)).toBe(true);
      const policy: ShapePolicy = { action: 'spill', thresholdTokens: 100, previewTokens: 100_000 };
      const { delivered, outcome } = await shapeResult(input, policy, ctx, { store, counter, now, rawTexts: raw });
      expect(outcome.action).toBe('pass');
      expect(delivered).toEqual(text(long));
      expect(await outcome.tokensDelivered).toBe(await counter.count(long));
    } finally {
      await raw.close();
    }
  });
});
