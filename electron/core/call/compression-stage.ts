/**
 * Result stage for action 'compress' (issue 8): the result was spilled first, so the original is kept
 * and has a handle; here the model condenses it. Without a configured model, on the caller's bypass, or
 * when the model fails, the spilled result is delivered as it is (with a note for the log).
 */
import { createHash } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CompressionSettings, Settings } from '../../../shared/config.js';
import { createChatClient } from '../compress/chat-client.js';
import { CompressionBudget } from '../compress/compression-budget.js';
import { CompressionCache } from '../compress/compression-cache.js';
import { createCompressor, type Compressor } from '../compress/compressor.js';
import { canonicalJson } from '../policy/canonical-json.js';
import { READ_RESULT_TOOL_REFERENCE } from '../spill/read-result-tool.js';
import { keptBinaryLine } from '../spill/result-preview.js';
import type { ShapedResult } from '../spill/shape-result.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { CallContext } from './call-context.js';
import type { CallReport } from './call-report.js';
import type { SpilledTexts } from './relay-contract.js';

export interface CompressionStageDeps {
  settings: () => Settings;
  counter: TokenCounter;
  spilled: SpilledTexts;
  now?: () => number;
}

export class CompressionStage {
  /** Condensed results, keyed by text, model, goal and budget; outlives settings changes. */
  readonly #cache = new CompressionCache();
  /** Retry escalation of the compression budget, per session and call (budgetKey). */
  readonly #budget: CompressionBudget;
  #current: { key: string; compressor: Compressor } | undefined;

  constructor(private readonly deps: CompressionStageDeps) {
    this.#budget = new CompressionBudget({ now: deps.now ?? Date.now });
  }

  /** One compressor per endpoint configuration. */
  #compressorFor(c: CompressionSettings & { baseUrl: string; model: string }): Compressor {
    const key = JSON.stringify([c.baseUrl, c.model, c.apiKey ?? '', c.timeoutMs]);
    if (this.#current?.key !== key) {
      const client = createChatClient({ baseUrl: c.baseUrl, model: c.model, apiKey: c.apiKey ?? null, timeoutMs: c.timeoutMs });
      const compressor = createCompressor({ client, counter: this.deps.counter, budget: this.#budget, cache: this.#cache });
      this.#current = { key, compressor };
    }
    return this.#current.compressor;
  }

  /** The report with the spilled result condensed; as it was when there is nothing to condense or it failed. */
  async condense(ctx: CallContext, spilled: ShapedResult, report: CallReport): Promise<CallReport> {
    const o = spilled.outcome;
    if (o.action !== 'spill' || !o.handle || !o.tokensUpstream) return report;
    if (ctx.compress?.bypass) return report;
    const c = this.deps.settings().compression;
    if (!c.baseUrl || !c.model) {
      report.note = 'compression is not set up (Settings: compression endpoint and model), so the result was spilled';
      return report;
    }
    // The stored text view: a result spooled to disk was spilled without ever being read into memory.
    const found = this.deps.spilled.lookup(o.handle);
    if ('error' in found) return report;
    // Images, audio and blobs are kept with the original, not condensed: the summary names them as the spilled answer does.
    const keptWith = keptBinaryLine(o.handle, found.entry.binary);
    let text: string;
    try {
      text = await this.deps.spilled.readText(o.handle);
    } catch {
      // The original could not be kept (the spill folder cannot be written): there is nothing to condense
      // that could be read back. The spilled report goes out as it is; its `keeping` says what became of it.
      return report;
    }
    if (text.trim().length === 0) return report;
    const request = ctx.compress;
    const goal = request?.goal ? maskedGoal(ctx, request.goal) : undefined;
    const compressed = await this.#compressorFor({ ...c, baseUrl: c.baseUrl, model: c.model }).compress(
      {
        text,
        ...(found.entry.contentType === 'json' ? { contentType: 'json' as const } : {}),
        tool: `${ctx.server}/${ctx.tool}`,
        ...(goal ? { goal } : {}),
        ...(request?.instructions ? { customInstructions: request.instructions } : {}),
        maxOutputTokens: request?.maxTokens ?? c.defaultMaxOutputTokens,
        originalTokens: o.tokensUpstream.tokens,
        originalTokensEstimated: o.tokensUpstream.estimated,
        handle: o.handle,
        readTool: READ_RESULT_TOOL_REFERENCE,
        ...(keptWith ? { keptWith } : {}),
        ...(ctx.masking?.maskResults && ctx.masking.vault.tag ? { placeholderTag: ctx.masking.vault.tag } : {}),
      },
      { budgetKey: budgetKey(ctx), signal: ctx.signal },
    );
    if (!compressed.ok) {
      report.note = `compression failed (${compressed.error.kind}): ${compressed.error.message}; the result was spilled instead`;
      return report;
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
    report.delivered = delivered;
    report.action = 'compress';
    report.asIs = false;
    report.bytesDelivered = Buffer.byteLength(JSON.stringify(delivered), 'utf8');
    report.tokensDelivered = compressed.tokens;
    report.countingDelivered = undefined;
    // The TOON saving was the spill preview's, which is not delivered.
    delete report.tokensSavedByEncoding;
    return report;
  }
}

/**
 * The escalation streak of a call: a retry is the same session calling the same tool with the same
 * arguments (without Spillway's own `_spillway_*`, which the request stage took off `ctx.args`; a new goal
 * for the same call is still a retry). Hashed: the key is kept, the arguments need not be.
 */
function budgetKey(ctx: CallContext): string {
  const args = createHash('sha256')
    .update(canonicalJson(ctx.args ?? {}))
    .digest('base64url');
  return `${ctx.session.id}\u0000${ctx.server}\u0000${ctx.tool}\u0000${args}`;
}

/**
 * The calling model's goal as the compression model reads it: with maskResults, masked with the call's
 * vault like the result it goes with (the same value gets the same placeholder, and the answer is restored
 * for the client with the rest of the result).
 */
function maskedGoal(ctx: CallContext, goal: string): string {
  const masking = ctx.masking;
  return masking?.maskResults ? masking.masker.maskText(goal, masking.vault).text : goal;
}
