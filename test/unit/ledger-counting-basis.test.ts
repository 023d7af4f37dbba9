/**
 * The ledger counts every result on one basis (ledger/counted-text.ts), the text the sizes measure:
 * a result passed as it came, one delivered as it came (paused, an error), a read-back and what TOON
 * delivers are all counted on their text and media, never on the JSON of their blocks (audit s17: a
 * kept result read back whole was counted ~40% above what its spill had counted, a false negative saving).
 * What TOON saved is part of the call's saving, the note it adds included.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { asIsReport, shapeReport, type CallReport } from '../../electron/core/call/call-report.js';
import type { ResultPolicy } from '../../electron/core/call/relay-contract.js';
import { encodePassed } from '../../electron/core/call/result-encoding.js';
import { countedText, mediaTokens } from '../../electron/core/ledger/counted-text.js';
import { Ledger } from '../../electron/core/ledger/ledger.js';
import { UsageRecords, type CountedCall } from '../../electron/core/ledger/usage-records.js';
import { viewResult } from '../../electron/core/spill/result-view.js';
import { shapeResult } from '../../electron/core/spill/shape-result.js';
import { SpillStore } from '../../electron/core/spill/spill-store.js';
import { imageTokens } from '../../electron/core/tokens/media-tokens.js';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';
import type { LedgerEntry } from '../../shared/ledger.js';

const counter = new TokenCounter();
afterAll(() => counter.close());

let dir: string;
let store: SpillStore;
const ledgers: Ledger[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-counting-'));
  store = await SpillStore.open({ dir: join(dir, 'spill'), now: Date.now, counter });
});
afterEach(async () => {
  await Promise.all(ledgers.splice(0).map((l) => l.close()));
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

/** The result as the shaper passes it, with no threshold (what a passed result is counted on). */
const passedWhole = async (result: CallToolResult) =>
  shapeResult(result, { action: 'pass', thresholdTokens: null, previewTokens: 0 }, { server: 'fx', tool: 't' }, { store, counter, now: Date.now });

/** A text whose JSON is much longer than itself: quotes, backslashes, newlines, as code and paths have. */
const QUOTED = 'Line {"a": "quoted \\"value\\"", "path": "C:\\\\dir"} with some words.\n'.repeat(300);
/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

const RESULTS: Array<[string, CallToolResult]> = [
  ['one text block', { content: [{ type: 'text', text: QUOTED }] }],
  [
    'text blocks and an embedded text resource',
    {
      content: [
        { type: 'text', text: 'first "one"' },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'C:\\dir\\file' } },
        { type: 'text', text: 'last' },
      ],
    },
  ],
  ['structuredContent only', { content: [], structuredContent: { rows: [{ id: 1, label: 'a "b"' }] } }],
  ['text with structuredContent (the text is what is read)', { content: [{ type: 'text', text: '{"rows":[]}' }], structuredContent: { rows: [] } }],
  [
    'text, an image and a resource link',
    {
      content: [
        { type: 'text', text: 'see the image' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
        { type: 'resource_link', uri: 'spillway://spill/x', name: 'x' },
      ],
    },
  ],
  ['nothing', { content: [] }],
];

/** One ledger and one UsageRecords; `record` resolves with the ledger lines the calls made. */
async function usage() {
  const ledger = new Ledger({ dir, now: Date.now });
  ledgers.push(ledger);
  await ledger.open();
  const records = new UsageRecords({ ledger, counter, schemas: () => ({ upstream: [], exposed: [] }), log: () => undefined });
  const lines: LedgerEntry[] = [];
  ledger.subscribe((u) => lines.push(u.record));
  const next = () =>
    new Promise<Extract<LedgerEntry, { kind: 'call' }>>((resolve) => {
      const off = ledger.subscribe((u) => {
        if (u.record.kind !== 'call') return;
        off();
        resolve(u.record);
      });
    });
  return { records, next };
}

const asCall = (report: CallReport): CountedCall => ({ session: { clientName: 'cursor' }, server: 'fx', tool: 't', durationMs: 1, report });

describe('one counting rule', () => {
  it.each(RESULTS)('counts the text the size measures (result-view.ts): %s', (_name, result) => {
    expect(countedText(result)).toBe(viewResult(result).text);
  });

  it('counts an image by its size, not its base64', () => {
    expect(mediaTokens(RESULTS[4][1])).toBe(imageTokens(PNG));
    expect(mediaTokens(RESULTS[0][1])).toBe(0);
  });

  it('a result delivered as it came (paused, an error) is counted as the same result passed would be', async () => {
    const { records, next } = await usage();
    for (const [, result] of RESULTS.filter(([, r]) => r.content.length > 0)) {
      const passed = await (await passedWhole(result)).outcome.countUpstreamTokens();
      for (const report of [asIsReport(result), asIsReport({ ...result, isError: true })]) {
        const recorded = next();
        records.recordCall(asCall(report));
        const line = await recorded;
        expect(line.tokensUpstream).toBe(passed.tokens);
        expect(line.tokensDelivered).toBe(passed.tokens);
      }
    }
  });

  it('a read-back counts the text read, as the spill counted it: not the JSON of its blocks', async () => {
    const { records, next } = await usage();
    const recorded = next();
    records.recordReadBack('cursor', 'spillway__read_result', { content: [{ type: 'text', text: QUOTED }] }, 3);
    const line = await recorded;
    const text = await counter.count(QUOTED);
    expect(line).toMatchObject({ server: 'spillway', tool: 'read_result', tokensUpstream: 0, tokensDelivered: text });
    // The old basis counted far more: the escapes and the block around the text.
    expect(await counter.count(JSON.stringify([{ type: 'text', text: QUOTED }]))).toBeGreaterThan(text * 1.2);
  });
});

describe('what TOON saved is part of what the call saved', () => {
  const policy: ResultPolicy = { action: 'pass', thresholdTokens: null, previewTokens: 0, encoding: 'auto' };

  it.each([
    ['one tabular block', [JSON.stringify({ rows: Array.from({ length: 60 }, (_, i) => ({ id: i, label: `row number ${i} with some words` })) })]],
    [
      'a small table, where the note is a large share',
      [JSON.stringify(Array.from({ length: 6 }, (_, i) => ({ id: i, name: `n${i}`, ok: true, n: i * 3 })))],
    ],
    [
      'two tabular blocks',
      [0, 1].map((b) => JSON.stringify(Array.from({ length: 30 }, (_, i) => ({ block: b, id: i, name: `item ${i}`, tags: 'a;b' })))),
    ],
  ])('%s: tokensSavedByEncoding ≤ tokensUpstream − tokensDelivered, the note included', async (_name, texts) => {
    const result: CallToolResult = { content: texts.map((text) => ({ type: 'text' as const, text })) };
    const report = shapeReport(await passedWhole(result));
    const encoded = await encodePassed(report, policy, counter);
    const delivered = await encoded.countingDelivered!;
    const upstream = (await report.countUpstreamTokens!()).tokens;
    // The blocks' savings less the note: the call's saving, but for a token where blocks are joined.
    expect(encoded.tokensSavedByEncoding).toBeGreaterThan(0);
    expect(Math.abs(upstream - delivered - encoded.tokensSavedByEncoding!)).toBeLessThanOrEqual(texts.length - 1);
    // The ledger's record holds to the bound exactly, as the call path hands it the report.
    const { records, next } = await usage();
    const recorded = next();
    records.recordCall(asCall({ ...encoded, countingDelivered: undefined, tokensDelivered: delivered }));
    const line = await recorded;
    expect(line).toMatchObject({ tokensUpstream: upstream, tokensDelivered: delivered });
    expect(line.tokensSavedByEncoding).toBeLessThanOrEqual(line.tokensUpstream - line.tokensDelivered);
  });

  it('the ledger never records more saved by the encoding than the call saved', async () => {
    const { records, next } = await usage();
    const recorded = next();
    const report = asIsReport({ content: [{ type: 'text', text: 'rows[2]{id}:\n  1\n  2' }] });
    records.recordCall(
      asCall({
        ...report,
        asIs: false,
        tokensDelivered: 10,
        countUpstreamTokens: async () => ({ tokens: 14, estimated: false }),
        tokensSavedByEncoding: 30,
      }),
    );
    expect(await recorded).toMatchObject({ tokensUpstream: 14, tokensDelivered: 10, tokensSavedByEncoding: 4 });
  });
});
