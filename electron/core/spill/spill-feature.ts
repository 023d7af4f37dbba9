/**
 * Plugs the spill store, the token counter and the savings ledger into the hub: the result shaper on the
 * call path, Spillway's own read-back tool and `spillway://spill/<handle>` resources, and the ledger
 * records (exact token counts made off the request path, then recorded).
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { CompressionSettings, Settings } from '../../../shared/config.js';
import type { CallRecordInput, Ledger } from '../ledger/ledger.js';
import type { OwnResources, OwnTool, ResultShaper, ShapeReport } from '../downstream/relay.js';
import { createChatClient } from '../compress/chat-client.js';
import { CompressionBudget } from '../compress/compression-budget.js';
import { CompressionCache } from '../compress/compression-cache.js';
import { createCompressor, type Compressor } from '../compress/compressor.js';
import { TokenCounter } from '../tokens/token-counter.js';
import { READ_RESULT_TOOL } from './read-result-tool.js';
import { readResult } from './read-result.js';
import { isSpillUri, readSpillResource, SpillResourceError } from './spill-resource.js';
import { join } from 'node:path';
import { RAW_DIR_NAME, RawTexts } from './raw-texts.js';
import { SpillStore } from './spill-store.js';
import { shapeResult, type ShapedResult } from './shape-result.js';

/** Stdio clients built on the SDK drop messages over 10 MiB: anything bigger than this is spilled for them. */
export const STDIO_CLIENT_MAX_BYTES = 4 * 1024 * 1024;
const CLEANUP_INTERVAL_MS = 15 * 60_000;

export interface SpillFeatureOptions {
  spillDir: string;
  settings: () => Settings;
  ledger: Ledger;
  now?: () => number;
  log: (message: string, error?: unknown) => void;
}

export interface SpillFeature {
  counter: TokenCounter;
  /** Condensed results, keyed by text, model, goal and budget (issue 8). */
  compressionCache: CompressionCache;
  /** Retry escalation of the compression budget, per server and tool. */
  compressionBudget: CompressionBudget;
  store: SpillStore;
  /** Where stdio upstreams stream multi-megabyte lines; their tool results are spilled from there. */
  rawTexts: RawTexts;
  shaper: ResultShaper;
  ownTools: OwnTool[];
  ownResources: OwnResources;
  /** Tokens of a tools/list payload (for the schema side of the ledger). */
  countSchemaTokens(tools: Tool[]): Promise<number>;
  close(): Promise<void>;
}

export async function createSpillFeature(options: SpillFeatureOptions): Promise<SpillFeature> {
  const now = options.now ?? Date.now;
  const settings = options.settings;
  const counter = new TokenCounter({ encoding: settings().tokenizer });
  const store = await SpillStore.open({
    dir: options.spillDir,
    now,
    counter,
    ttlMs: settings().spill.ttlHours * 3600_000,
    quotaBytes: settings().spill.quotaBytes,
    log: options.log,
  });
  const rawTexts = await RawTexts.open({ dir: join(options.spillDir, RAW_DIR_NAME), now });
  const timer = setInterval(() => {
    void store.cleanup().catch((err) => options.log('spill cleanup failed', err));
  }, CLEANUP_INTERVAL_MS);
  timer.unref();

  const compressionCache = new CompressionCache();
  const compressionBudget = new CompressionBudget({ now });
  let current: { key: string; compressor: Compressor } | undefined;
  /** One compressor per endpoint configuration; the cache and the budget outlive settings changes. */
  const compressorFor = (c: CompressionSettings & { baseUrl: string; model: string }): Compressor => {
    const key = JSON.stringify([c.baseUrl, c.model, c.apiKey ?? '', c.timeoutMs]);
    if (current?.key !== key) {
      const client = createChatClient({ baseUrl: c.baseUrl, model: c.model, apiKey: c.apiKey ?? null, timeoutMs: c.timeoutMs });
      current = { key, compressor: createCompressor({ client, counter, budget: compressionBudget, cache: compressionCache }) };
    }
    return current.compressor;
  };

  /**
   * Action 'compress' (issue 8): the result is spilled first, so the original is kept and has a handle,
   * then condensed by the model. Without a configured model, on bypass, or when the model fails, the
   * spilled result is delivered as it is (with a note for the log).
   */
  const compressSpilled = async (result: CallToolResult, spilled: ShapedResult, report: ShapeReport, ctx: Parameters<ResultShaper['shape']>[1]): Promise<ShapeReport> => {
    const o = spilled.outcome;
    if (o.action !== 'spill' || !o.handle || !o.tokensUpstream) return report;
    if (ctx.compress?.bypass) return report;
    const c = settings().compression;
    if (!c.baseUrl || !c.model) {
      return { ...report, note: 'compression is not set up (Settings: compression endpoint and model), so the result was spilled' };
    }
    // The stored text view: a result spooled to disk was spilled without ever being read into memory.
    const found = store.lookup(o.handle);
    if ('error' in found) return report;
    const view = { text: await store.readText(o.handle), contentType: found.entry.contentType };
    if (view.text.trim().length === 0) return report;
    const compressed = await compressorFor({ ...c, baseUrl: c.baseUrl, model: c.model }).compress(
      {
        text: view.text,
        ...(view.contentType === 'json' ? { contentType: 'json' as const } : {}),
        tool: `${ctx.serverId}/${ctx.tool}`,
        ...(ctx.compress?.goal ? { goal: ctx.compress.goal } : {}),
        ...(ctx.compress?.instructions ? { customInstructions: ctx.compress.instructions } : {}),
        maxOutputTokens: ctx.compress?.maxTokens ?? c.defaultMaxOutputTokens,
        originalTokens: o.tokensUpstream.tokens,
        originalTokensEstimated: o.tokensUpstream.estimated,
        handle: o.handle,
      },
      { budgetKey: `${ctx.serverId}\u0000${ctx.tool}`, ...(ctx.signal ? { signal: ctx.signal } : {}) },
    );
    if (!compressed.ok) {
      return { ...report, note: `compression failed (${compressed.error.kind}): ${compressed.error.message}; the result was spilled instead` };
    }
    const link = spilled.delivered.content.filter((block) => block.type === 'resource_link');
    const delivered: CallToolResult = {
      content: [{ type: 'text', text: compressed.text }, ...link],
      _meta: {
        ...(spilled.delivered._meta ?? {}),
        'spillway/compressed': true,
        'spillway/compression': {
          strategy: compressed.strategy,
          maxOutputTokens: compressed.maxOutputTokens,
          attempt: compressed.attempt,
          cached: compressed.cached,
          latencyMs: compressed.latencyMs,
        },
      },
    };
    const tokens = compressed.tokens;
    return {
      ...report,
      delivered,
      action: 'compress',
      bytesDelivered: Buffer.byteLength(JSON.stringify(delivered), 'utf8'),
      tokensDelivered: tokens,
      countDeliveredTokens: async () => ({ tokens, estimated: false }),
    };
  };

  const shaper: ResultShaper = {
    async shape(result, ctx) {
      const s = settings().spill;
      // A tool's effective policy (issue 5) replaces the global spill settings for its results.
      const p = ctx.policy ?? s;
      const compress = p.action === 'compress';
      const policy = { action: compress ? ('spill' as const) : p.action, thresholdTokens: p.thresholdTokens, previewTokens: p.previewTokens, ttlMs: s.ttlHours * 3600_000 };
      const deps = { store, counter, now, rawTexts };
      let shaped = await shapeResult(result, policy, { server: ctx.serverId, tool: ctx.tool, client: ctx.client ?? null }, deps);
      // A stdio client must never get one message of more than a few MiB, whatever the policy says.
      if (ctx.transport !== 'http' && shaped.outcome.bytesDelivered > STDIO_CLIENT_MAX_BYTES) {
        // A passed result is the one to spill (a spooled one has been read back by then).
        const source = shaped.outcome.action === 'pass' ? shaped.delivered : result;
        shaped = await shapeResult(source, { ...policy, action: 'spill', thresholdTokens: Math.min(policy.thresholdTokens ?? 1_000_000, 1_000_000) }, { server: ctx.serverId, tool: ctx.tool, client: ctx.client ?? null }, deps);
      }
      const o = shaped.outcome;
      const report: ShapeReport = {
        delivered: shaped.delivered,
        action: o.action,
        bytesUpstream: o.bytesUpstream,
        bytesDelivered: o.bytesDelivered,
        ...(o.tokensUpstream ? { tokensUpstream: o.tokensUpstream.tokens } : {}),
        ...(o.tokensDelivered !== null ? { tokensDelivered: o.tokensDelivered } : {}),
        ...(o.handle ? { handle: o.handle } : {}),
        ...(o.note ? { note: o.note } : {}),
        countUpstreamTokens: o.countUpstreamTokens,
        countDeliveredTokens: o.action === 'pass' ? o.countUpstreamTokens : async () => ({ tokens: o.tokensDelivered ?? 0, estimated: false }),
      };
      return compress ? compressSpilled(result, shaped, report, ctx) : report;
    },
    materialize: (result) => rawTexts.materialize(result),
  };

  const readTool: OwnTool = {
    tool: READ_RESULT_TOOL as Tool,
    call: (args) => readResult(store, counter, args),
  };

  const ownResources: OwnResources = {
    matches: isSpillUri,
    async read(uri) {
      try {
        return await readSpillResource(store, uri);
      } catch (err) {
        if (err instanceof SpillResourceError) throw Object.assign(new Error(err.message), { code: -32002 });
        throw err;
      }
    },
  };

  return {
    counter,
    compressionCache,
    compressionBudget,
    store,
    rawTexts,
    shaper,
    ownTools: [readTool],
    ownResources,
    countSchemaTokens: async (tools) => (await counter.countExactOffThread(JSON.stringify({ tools }))).tokens,
    async close() {
      clearInterval(timer);
      await rawTexts.close();
      await store.close?.();
      await counter.close();
    },
  };
}

/** Records one finished call in the ledger once its exact token counts are known (off the request path). */
export function recordCallInLedger(
  ledger: Ledger,
  base: Omit<CallRecordInput, 'tokensUpstream' | 'tokensDelivered' | 'tokensEstimated'>,
  counts: { upstream: () => Promise<{ tokens: number; estimated: boolean }>; delivered: () => Promise<{ tokens: number; estimated: boolean }> },
  log: (message: string, error?: unknown) => void,
): void {
  void Promise.all([counts.upstream(), counts.delivered()])
    .then(([up, down]) => {
      ledger.recordCall({
        ...base,
        tokensUpstream: up.tokens,
        // A passed result is delivered as it came: the same count, exact or estimated.
        tokensDelivered: base.action === 'pass' || base.action === 'error' ? up.tokens : down.tokens,
        tokensEstimated: up.estimated || down.estimated,
      });
    })
    .catch((err) => log('ledger record failed', err));
}

export type { CallToolResult };
