import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import { SpillStore } from '../../electron/core/spill/spill-store.js';
import { shapeResult } from '../../electron/core/spill/shape-result.js';
import { decideShape, textTokenLimit, type ShapePolicy } from '../../electron/core/spill/shape-decision.js';
import { summarizeJson } from '../../electron/core/spill/json-summary.js';
import { IMAGE_MAX_TOKENS } from '../../electron/core/tokens/media-tokens.js';
import { RawTexts } from '../../electron/core/spill/raw-texts.js';
import { RawMessageSpool } from '../../electron/core/wire/raw-spool.js';

const counter = new TokenCounter();
afterAll(() => counter.close());

let root: string;
let store: SpillStore;
const clock = Date.UTC(2026, 0, 1, 12);
const now = () => clock;
const ctx = { server: 'fs', tool: 'read_file', client: 'cursor' };

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-shape-'));
  store = await SpillStore.open({ dir: join(root, 'spill'), now, counter });
});
afterEach(async () => {
  await store.close();
  await rm(root, { recursive: true, force: true });
});

const spill = (thresholdTokens: number | null, previewTokens = 100): ShapePolicy => ({ action: 'spill', thresholdTokens, previewTokens });
const text = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }] });
/** Exactly n o200k tokens. */
const tokensOf = (n: number) => ' word'.repeat(n);
const logLines = (n: number) =>
  Array.from({ length: n }, (_, i) => `2026-01-01 12:00:${String(i % 60).padStart(2, '0')} INFO request ${i} served in ${i % 97} ms`).join('\n');

function deliveredText(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

describe('the pure decision: textTokenLimit and decideShape', () => {
  const limits: Array<[string, Pick<ShapePolicy, 'action' | 'thresholdTokens' | 'spillAsked'>, boolean, number, number | null]> = [
    ['spill: the threshold', { action: 'spill', thresholdTokens: 1000 }, false, 0, 1000],
    ['media count against it', { action: 'spill', thresholdTokens: 1000 }, false, 300, 700],
    ['media alone over it', { action: 'truncate', thresholdTokens: 1000 }, false, 1500, -500],
    ['compress measures like spill', { action: 'compress', thresholdTokens: 50 }, false, 0, 50],
    ['an error passes uncounted', { action: 'spill', thresholdTokens: 1000 }, true, 0, null],
    ['a pass policy passes uncounted', { action: 'pass', thresholdTokens: 1000 }, false, 0, null],
    ['no threshold passes uncounted', { action: 'truncate', thresholdTokens: null }, false, 0, null],
    ['a spill asked for lets no text pass', { action: 'spill', thresholdTokens: 1, spillAsked: true }, false, 0, -1],
    ['an error passes though a spill was asked for', { action: 'spill', thresholdTokens: 1, spillAsked: true }, true, 0, null],
  ];
  it.each(limits)('limit: %s', (_name, policy, isError, media, limit) => {
    expect(textTokenLimit(policy, isError, media)).toBe(limit);
  });

  const decisions: Array<[ShapePolicy['action'], boolean, string]> = [
    ['spill', false, 'pass'],
    ['spill', true, 'spill'],
    ['truncate', false, 'pass'],
    ['truncate', true, 'truncate'],
    ['compress', true, 'spill'],
    ['compress', false, 'pass'],
  ];
  it.each(decisions)('%s, over the limit: %s → %s', (action, over, expected) => {
    expect(decideShape({ action }, over)).toBe(expected);
  });
});

describe('shapeResult: the decision', () => {
  const cases: Array<[string, CallToolResult, number | null, 'pass' | 'spill']> = [
    ['empty', text(''), 100, 'pass'],
    ['no content at all', { content: [] }, 100, 'pass'],
    ['under', text(tokensOf(99)), 100, 'pass'],
    ['exactly at the threshold', text(tokensOf(100)), 100, 'pass'],
    // A header over the preview would cost more than the result itself (issue 14, item 5).
    ['one over, smaller than what would replace it', text(tokensOf(101)), 100, 'pass'],
    ['over by more than a header and the preview', text(tokensOf(600)), 100, 'spill'],
    ['far over', text(logLines(5000)), 100, 'spill'],
    ['threshold off', text(logLines(5000)), null, 'pass'],
    ['CJK: more bytes than tokens, under', text('東京の天気'.repeat(40)), 300, 'pass'],
    ['CJK over', text('東京の天気は晴れです。'.repeat(200)), 300, 'spill'],
    ['emoji over', text('🎉🚀👍🏽'.repeat(300)), 300, 'spill'],
    ['special tokens as text', text('<|endoftext|>'.repeat(200)), 100, 'spill'],
  ];
  it.each(cases)('%s', async (_name, result, threshold, action) => {
    const { delivered, outcome } = await shapeResult(result, spill(threshold), ctx, { store, counter, now });
    expect(outcome.action).toBe(action);
    if (action === 'pass') expect(delivered).toBe(result);
    else expect(outcome.handle).toBeDefined();
    expect(CallToolResultSchema.safeParse(delivered).success).toBe(true);
  });

  it('passes by size without counting, and counts exactly when the size alone cannot decide', async () => {
    const pending = shapeResult(text('tiny'), spill(100), ctx, { store, counter, now });
    // The common case costs no promise: the call path reports it at once.
    expect(pending).not.toBeInstanceOf(Promise);
    const small = await pending;
    expect(small.outcome).toMatchObject({ action: 'pass', tokensDelivered: null, tokensUpstream: null });
    expect(await small.outcome.countUpstreamTokens()).toEqual({ tokens: 1, estimated: false });
    const near = await shapeResult(text(tokensOf(100)), spill(100), ctx, { store, counter, now });
    expect(near.outcome).toMatchObject({ action: 'pass', tokensDelivered: 100, tokensUpstream: { tokens: 100, estimated: false } });
  });

  it('passes isError results unchanged, however large', async () => {
    const result: CallToolResult = { ...text(logLines(5000)), isError: true };
    const { delivered, outcome } = await shapeResult(result, spill(10), ctx, { store, counter, now });
    expect(delivered).toBe(result);
    expect(outcome.action).toBe('pass');
    expect(store.list()).toEqual([]);
  });

  it('keeps any result that is not an error when the spill was asked for, an empty one too (audit s17, D2)', async () => {
    const asked: ShapePolicy = { action: 'spill', thresholdTokens: 1, previewTokens: 100, spillAlways: true, spillAsked: true };
    for (const result of [text('3'), text(''), { content: [] }]) {
      const { outcome } = await shapeResult(result, asked, ctx, { store, counter, now });
      expect(outcome.action).toBe('spill');
      expect(outcome.handle).toBeDefined();
    }
    const failed: CallToolResult = { ...text('failed'), isError: true };
    expect((await shapeResult(failed, asked, ctx, { store, counter, now })).delivered).toBe(failed);
  });

  it('says a result kept as asked was kept as asked, not that it was too large (audit s17, D3)', async () => {
    const asked: ShapePolicy = { action: 'spill', thresholdTokens: 1, previewTokens: 100, spillAlways: true, spillAsked: true };
    const kept = await shapeResult(text('3'), asked, ctx, { store, counter, now });
    expect(deliveredText(kept.delivered).split('\n')[0]).toMatch(
      /^\[Spillway\] Kept aside as asked: 1 token \(\d+ B\) — showing the first 1 token \(1 line\)\.$/,
    );
    const large = await shapeResult(text(logLines(5000)), spill(100), ctx, { store, counter, now });
    expect(deliveredText(large.delivered)).toMatch(/^\[Spillway\] Result too large for the context, kept in full: ~?[\d,]+ tokens \(/);
  });

  it('counts image blocks by their own rule, not as base64 text', async () => {
    const image = { type: 'image' as const, data: Buffer.alloc(200_000, 7).toString('base64'), mimeType: 'image/png' };
    const passed = await shapeResult({ content: [{ type: 'text', text: 'a chart' }, image] }, spill(10_000), ctx, { store, counter, now });
    expect(passed.outcome.action).toBe('pass');
    const spilled = await shapeResult({ content: [{ type: 'text', text: tokensOf(100) }, image] }, spill(IMAGE_MAX_TOKENS + 50), ctx, {
      store,
      counter,
      now,
    });
    expect(spilled.outcome.action).toBe('spill');
    expect(spilled.outcome.tokensUpstream).toEqual({ tokens: 100 + IMAGE_MAX_TOKENS, estimated: false });
    expect(deliveredText(spilled.delivered)).toMatch(/1 binary block\(s\) \(image\/png\)/);
    const entry = store.lookup(spilled.outcome.handle);
    expect(entry).toMatchObject({ entry: { contentType: 'mixed', binary: [{ index: 1, kind: 'image', file: 'block-1.png' }] } });
  });
});

describe('shapeResult: what a spilled result looks like', () => {
  it('writes the full result first, then delivers header, preview, resource_link and _meta, without structuredContent', async () => {
    const body = logLines(3000);
    const result: CallToolResult = { content: [{ type: 'text', text: body }], structuredContent: { lines: 3000 }, _meta: { x: 1 } };
    const { delivered, outcome } = await shapeResult(result, { ...spill(1000, 200), ttlMs: 3_600_000 }, ctx, { store, counter, now });
    expect(outcome.action).toBe('spill');
    const handle = outcome.handle!;
    expect(await store.readResult(handle)).toEqual(result);
    expect(delivered.structuredContent).toBeUndefined();
    expect(delivered.isError).toBeUndefined();
    expect(CallToolResultSchema.safeParse(delivered).success).toBe(true);

    const shown = deliveredText(delivered);
    const upstream = await counter.count(body);
    expect(outcome.tokensUpstream).toEqual({ tokens: upstream, estimated: false });
    expect(shown).toContain(`${upstream.toLocaleString('en-US')} tokens (`);
    expect(shown).toMatch(/— showing the first \d{3} tokens \(\d+ lines\)\./);
    expect(shown).toContain(`Handle "${handle}", kept until 2026-01-01T13:00:00.000Z (60 min)`);
    expect(shown).toContain(`{"handle":"${handle}","op":"grep","pattern":"<regex>"}`);
    // Named so that it holds in every client, whatever prefix the client puts on MCP tools (issue 13 item 8).
    expect(shown).toContain('Read more with the tool whose name ends in spillway__read_result, e.g.');
    // The preview is the head of the text, cut at a line boundary, within its token budget.
    const preview = shown.slice(shown.indexOf('\n---\n') + 5);
    expect(body.startsWith(preview)).toBe(true);
    expect(body[preview.length]).toBe('\n');
    expect(await counter.count(preview)).toBeLessThanOrEqual(200);
    expect(await counter.count(preview)).toBeGreaterThan(150);

    expect(delivered.content[1]).toMatchObject({ type: 'resource_link', uri: `spillway://spill/${handle}`, mimeType: 'text/plain' });
    expect(delivered._meta).toMatchObject({ 'spillway/handle': handle, 'spillway/tokens': upstream, 'spillway/tokensEstimated': false });
    expect(outcome.bytesUpstream).toBe(Buffer.byteLength(JSON.stringify(result)));
    expect(outcome.bytesDelivered).toBe(Buffer.byteLength(JSON.stringify(delivered)));
    expect(outcome.bytesDelivered).toBeLessThan(outcome.bytesUpstream / 5);
    expect(await outcome.tokensDelivered).toBe(await counter.count(shown));
    expect(outcome.tokensUpstreamLowerBound).toBe(1001);
  });

  it('marks an estimated count with ~ and makes it exact off-thread later, recording it in the store', async () => {
    const small = new TokenCounter({ quickExactLimitBytes: 10_000, estimatePrefixChars: 5_000 });
    try {
      const body = logLines(4000);
      const { delivered, outcome } = await shapeResult(text(body), spill(1000), ctx, { store, counter: small, now });
      expect(outcome.tokensUpstream?.estimated).toBe(true);
      expect(deliveredText(delivered)).toMatch(/Result too large for the context, kept in full: ~[\d,]+ tokens/);
      const exact = await outcome.countUpstreamTokens();
      expect(exact).toEqual({ tokens: await counter.count(body), estimated: false });
      expect(store.lookup(outcome.handle)).toMatchObject({ entry: { tokens: exact.tokens, tokensEstimated: false } });
    } finally {
      await small.close();
    }
  });

  it('summarizes JSON structurally instead of cutting it raw', async () => {
    const data = {
      total: 2500,
      next: 'cursor-abc',
      items: Array.from({ length: 2500 }, (_, i) => ({ id: i, name: `item ${i}`, tags: ['x', 'y'], active: i % 2 === 0 })),
      errors: [{ code: 'E1' }],
    };
    const { delivered, outcome } = await shapeResult(text(JSON.stringify(data)), spill(1000, 300), ctx, { store, counter, now });
    const shown = deliveredText(delivered);
    expect(outcome.action).toBe('spill');
    expect(shown).toMatch(/showing a structural summary \(\d+ tokens\)/);
    expect(shown).toContain('JSON object with 4 top-level keys:');
    expect(shown).toContain('"items": array of 2,500 (objects like {id, name, tags, active})');
    expect(shown).toContain('"total": number 2500');
    expect(shown).toContain('First items of .items:');
    expect(shown).toContain('[0] {"id":0,"name":"item 0","tags":["x","y"],"active":true}');
    expect(shown).toContain('"op":"query"');
    expect(delivered.content[1]).toMatchObject({ mimeType: 'application/json' });
    const preview = shown.slice(shown.indexOf('\n---\n') + 5);
    expect(await counter.count(preview)).toBeLessThanOrEqual(300);
  });

  it('summarizes structuredContent when the result has no text', async () => {
    const result: CallToolResult = { content: [], structuredContent: { rows: Array.from({ length: 3000 }, (_, i) => ({ i })) } };
    const { delivered, outcome } = await shapeResult(result, spill(500), ctx, { store, counter, now });
    expect(outcome.action).toBe('spill');
    expect(deliveredText(delivered)).toContain('"rows": array of 3,000');
    expect(delivered.structuredContent).toBeUndefined();
    expect(await store.readResult(outcome.handle!)).toEqual(result);
  });

  it('treats compress as spill for now', async () => {
    const { outcome } = await shapeResult(text(logLines(2000)), { action: 'compress', thresholdTokens: 100, previewTokens: 50 }, ctx, {
      store,
      counter,
      now,
    });
    expect(outcome.action).toBe('spill');
  });
});

describe('shapeResult: texts streamed to disk', () => {
  /** The result as an upstream's stdio line streamed through the raw spool would give it, its long text on disk. */
  function spooled(raw: RawTexts, result: CallToolResult): CallToolResult {
    const spool = new RawMessageSpool(raw.options);
    const line = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, result }));
    for (let at = 0; at < line.length; at += 64 * 1024) spool.push(line.subarray(at, at + 64 * 1024));
    const { skeleton, strings } = spool.finish();
    raw.adopt(strings);
    return (JSON.parse(skeleton) as { result: CallToolResult }).result;
  }

  it('decides and previews from the start counted while the text arrived, as it would have after', async () => {
    const body = logLines(12_000);
    const early = await RawTexts.open({ dir: join(root, 'raw-early'), counter, previewTokens: () => 100 });
    const late = await RawTexts.open({ dir: join(root, 'raw-late') });
    try {
      const input = spooled(early, text(body));
      const start = early.countedStart(deliveredText(input));
      expect(start?.preview).toMatchObject({ previewTokens: 100 });
      expect(await start?.sample).toEqual({ chars: expect.any(Number), tokens: await counter.count(body.slice(0, (await start!.sample)!.chars)) });
      const first = await shapeResult(input, spill(1000), ctx, { store, counter, now, rawTexts: early });
      const second = await shapeResult(spooled(late, text(body)), spill(1000), ctx, { store, counter, now, rawTexts: late });
      expect(first.outcome.action).toBe('spill');
      expect(second.outcome.handle).toBe(first.outcome.handle);
      const preview = (r: CallToolResult) => deliveredText(r).split('\n---\n')[1];
      expect(preview(first.delivered)).toBe(await counter.truncateToTokens(body, 100));
      expect(preview(second.delivered)).toBe(preview(first.delivered));
      const exact = await counter.count(body);
      for (const { outcome } of [first, second]) {
        expect(outcome.tokensUpstream?.estimated).toBe(true);
        expect(Math.abs(outcome.tokensUpstream!.tokens - exact) / exact).toBeLessThan(0.02);
      }
      expect(await first.outcome.countUpstreamTokens()).toEqual({ tokens: exact, estimated: false });
    } finally {
      await early.close();
      await late.close();
    }
  });
});

describe('shapeResult: truncate and failures', () => {
  it('truncates when asked, keeping nothing, clearly labelled with the sizes', async () => {
    const { delivered, outcome } = await shapeResult(text(logLines(3000)), { action: 'truncate', thresholdTokens: 500, previewTokens: 100 }, ctx, {
      store,
      counter,
      now,
    });
    expect(outcome.action).toBe('truncate');
    expect(outcome.handle).toBeUndefined();
    expect(store.list()).toEqual([]);
    const shown = deliveredText(delivered);
    expect(shown).toMatch(/^\[Spillway\] TRUNCATED: this result was [\d,]+ tokens \([\d.]+ [KM]B\) — showing the first \d+ tokens \(\d+ lines\)\./);
    expect(shown).not.toContain('spillway__read_result');
    expect(delivered.content).toHaveLength(1);
    expect(delivered._meta).toMatchObject({ 'spillway/truncated': true });
  });

  it('falls back to a truncated preview with a note when the store cannot write — never a handle to nothing', async () => {
    const file = join(root, 'plain-file');
    await writeFile(file, 'x');
    const broken = await SpillStore.open({ dir: join(file, 'spill'), now, counter });
    const { delivered, outcome } = await shapeResult(text(logLines(3000)), spill(500), ctx, { store: broken, counter, now });
    expect(outcome.action).toBe('truncate');
    expect(outcome.handle).toBeUndefined();
    expect(outcome.note).toMatch(/spill failed: the spill folder could not be written: (ENOTDIR|EEXIST)/);
    const shown = deliveredText(delivered);
    expect(shown).toContain('TRUNCATED');
    expect(shown).toContain('The full result could not be kept');
    expect(JSON.stringify(delivered)).not.toContain('spillway://');
    expect(delivered._meta?.['spillway/handle']).toBeUndefined();
  });
});

describe('summarizeJson', () => {
  it.each([
    ['root array', [{ a: 1 }, { a: 2 }], ['JSON array of 2 items (objects like {a}).', '[0] {"a":1}']],
    ['scalars', { s: 'x'.repeat(200), n: null, b: false }, ['"s": string (200 chars)', '"n": null', '"b": boolean false']],
    ['nested object', { meta: { a: 1, b: 2 } }, ['"meta": object with 2 keys {a, b}']],
    ['odd keys', { 'odd key': [1, 2] }, ['First items of ."odd key":', '[1] 2']],
    ['a bare value', 42, ['JSON number 42']],
  ])('%s', (_name, value, expected) => {
    const summary = summarizeJson(value, 10_000);
    for (const part of expected) expect(summary).toContain(part);
  });

  it('stops near its character budget', () => {
    const big = { items: Array.from({ length: 1000 }, (_, i) => ({ id: i, text: 'lorem ipsum '.repeat(10) })) };
    expect(summarizeJson(big, 2000).length).toBeLessThan(2600);
  });
});
