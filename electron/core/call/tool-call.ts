/**
 * The tools/call pipeline for upstream tools: refusal (hidden, withheld) → policy arguments → PII masking
 * → cache → the upstream call (progress, timeout, cancellation) → result shaping → call events and the
 * ledger hook.
 */
import { randomUUID } from 'node:crypto';
import { CallToolResultSchema, ErrorCode, McpError, type CallToolRequest, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PiiPolicy } from '../../../shared/policy.js';
import type { ToolEntry } from '../catalog/catalog.js';
import { takeCompressionFields } from '../compress/compression-fields.js';
import { createMasker, type PiiMasker } from '../pii/pii-masker.js';
import { restore, type PiiVault } from '../pii/pii-vault.js';
import { prepareArguments } from '../policy/schema-rewrite.js';
import type { ProgressRoutes } from './progress-routes.js';
import type { CallOptions, RelayDeps, ResultPolicy, ShapeReport } from './relay-contract.js';
import { bareMessage, errorResult, isUnreachable, rpcError, unavailableMessage } from './relay-errors.js';
import type { DownstreamExtra, DownstreamSession } from './session.js';

/** Longest the SDK itself may wait; our own timer (reset by progress) is what actually times out. */
const SDK_TIMEOUT_CEILING_MS = 24 * 3600_000;

function byteLength(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

function passReport(result: CallToolResult): ShapeReport {
  const bytes = byteLength(result);
  return { delivered: result, action: 'pass', bytesUpstream: bytes, bytesDelivered: bytes };
}

/** Why a catalog entry may not be called (hidden by policy, withheld by a pin), or undefined. */
function refusalFor(entry: ToolEntry): string | undefined {
  if (entry.state === 'hidden') {
    return `Tool "${entry.name}" is turned off in Spillway (hidden by a policy for server "${entry.serverId}").`;
  }
  if (entry.state === 'withheld') {
    return (
      `Tool "${entry.name}" is withheld: server "${entry.serverId}" changed its definition (name, description or ` +
      'input schema) since Spillway first saw it. Ask the user to review and approve the change in Spillway before using it.'
    );
  }
  return undefined;
}

function preview(value: unknown, max = 300): string | undefined {
  if (value === undefined) return undefined;
  const text = JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** Maskers kept per PII policy (compiling custom patterns once); a handful of policies at most. */
const MAX_MASKERS = 100;

interface Masking {
  masker: PiiMasker;
  vault: PiiVault;
  maskResults: boolean;
}

export class ToolCallPipeline {
  #maskers = new Map<string, PiiMasker>();

  constructor(
    private readonly deps: RelayDeps,
    private readonly progress: ProgressRoutes,
  ) {}

  /** The masker of a PII policy; throws (PiiPatternError) for a custom pattern the masker refuses. */
  #maskerFor(pii: PiiPolicy): PiiMasker {
    const key = JSON.stringify(pii);
    let masker = this.#maskers.get(key);
    if (!masker) {
      masker = createMasker({ types: pii.types, ...(pii.custom ? { custom: pii.custom } : {}) });
      if (this.#maskers.size >= MAX_MASKERS) this.#maskers.clear();
      this.#maskers.set(key, masker);
    }
    return masker;
  }

  /**
   * Calls an upstream tool by its exposed name through the whole pipeline (policies, cache, timeout,
   * shaper, ledger). Direct calls and spillway__dispatch's `call` both come here.
   */
  async call(
    session: DownstreamSession,
    params: CallToolRequest['params'],
    extra: DownstreamExtra,
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    const entry = this.deps.catalog.tool(params.name);
    if (!entry) throw rpcError(ErrorCode.InvalidParams, `Unknown tool: ${params.name}`);
    const refusal = refusalFor(entry);
    if (refusal) {
      this.deps.emit({ type: 'log', level: 'warn', server: entry.serverId, message: `Refused a call to ${entry.name}: ${refusal}` });
      return errorResult(refusal);
    }
    const values = this.deps.policy?.(entry);
    // _spillway_goal / _spillway_bypass are Spillway's own: they never reach the upstream.
    const taken = values?.action === 'compress' ? takeCompressionFields(params.arguments) : { args: params.arguments };
    const args = values ? prepareArguments(taken.args, values) : taken.args;
    // PII: the upstream gets placeholders; the vault (this call only, in memory) restores its answer.
    let masking: Masking | undefined;
    let forwarded = args;
    if (values?.pii) {
      let masker: PiiMasker;
      try {
        masker = this.#maskerFor(values.pii);
      } catch (err) {
        const message = `Tool "${entry.name}" was not called: its PII masking policy is invalid (${(err as Error).message}). Fix it in Spillway's tool policies.`;
        this.deps.emit({ type: 'log', level: 'error', server: entry.serverId, message });
        return errorResult(message);
      }
      const { masked, vault } = masker.maskArguments(args ?? {});
      masking = { masker, vault, maskResults: values.pii.maskResults === true };
      forwarded = masked;
    }
    const callId = randomUUID();
    const started = performance.now();
    const base = {
      callId,
      session: session.id,
      client: session.clientName,
      server: entry.serverId,
      tool: entry.original,
      exposedName: entry.name,
    };
    // The log never holds what masking kept from the upstream.
    this.deps.emit({ type: 'call.started', level: 'info', ...base, argumentsPreview: preview(masking ? forwarded : params.arguments) });
    const finish = (result: CallToolResult, outcome: Omit<ShapeReport, 'delivered'> & { savedMs?: number }, error?: string) => {
      const durationMs = Math.round((performance.now() - started) * 100) / 100;
      const { countUpstreamTokens: _u, countDeliveredTokens: _d, note, ...summary } = outcome;
      this.deps.emit({
        type: 'call.finished',
        level: result.isError || note ? 'warn' : 'info',
        ...base,
        durationMs,
        isError: Boolean(result.isError),
        ...summary,
        ...(error ?? note ? { error: error ?? note } : {}),
      });
      this.deps.onCallFinished?.({ callId, session, server: entry.serverId, tool: entry.original, exposedName: entry.name, durationMs, report: { ...outcome, delivered: result } });
      return result;
    };

    const paused = this.deps.settings().paused;
    const resultPolicy: ResultPolicy | undefined = options.resultToSpill
      ? { action: 'spill', thresholdTokens: 1, previewTokens: values?.previewTokens ?? this.deps.settings().spill.previewTokens }
      : values;
    const shape = (result: CallToolResult) =>
      this.deps.shaper.shape(result, {
        serverId: entry.serverId,
        tool: entry.original,
        client: session.clientName,
        callId,
        transport: session.kind,
        ...(resultPolicy ? { policy: { action: resultPolicy.action, thresholdTokens: resultPolicy.thresholdTokens, previewTokens: resultPolicy.previewTokens } } : {}),
        ...(resultPolicy?.action === 'compress' && values
          ? {
              compress: {
                ...(taken.goal ? { goal: taken.goal } : {}),
                ...(taken.bypass ? { bypass: true } : {}),
                ...(values.compressInstructions ? { instructions: values.compressInstructions } : {}),
                ...(values.compressMaxTokens ? { maxTokens: values.compressMaxTokens } : {}),
              },
            }
          : {}),
        signal: extra.signal,
      });
    /** With maskResults, what is spilled or sent to the model holds placeholders; the client gets the originals. */
    const shapeRestored = async (result: CallToolResult): Promise<ShapeReport> => {
      if (!masking?.maskResults) return shape(result);
      const shaped = await shape(masking.masker.maskResult(result, masking.vault).masked);
      return { ...shaped, delivered: restore(shaped.delivered, masking.vault) };
    };
    const restored = (result: CallToolResult) => (masking ? restore(result, masking.vault) : result);
    const cache = values && values.cacheTtlSeconds > 0 && !paused ? this.deps.cache : undefined;
    const hit = cache?.get(entry.serverId, entry.original, args);
    if (hit) {
      // The raw upstream result is cached; it is shaped again so today's policy (and a fresh handle) applies.
      // Masking is deterministic, so this call's vault restores the placeholders the upstream answered with.
      const result = restored(hit.result);
      const shaped = result.isError ? passReport(result) : await shapeRestored(result);
      return finish(shaped.delivered, { ...shaped, action: 'cache', ...(hit.durationMs !== undefined ? { savedMs: hit.durationMs } : {}) });
    }

    const upstream = this.deps.upstreams().get(entry.serverId);
    const client = upstream?.client;
    if (!upstream || !client) {
      const result = errorResult(unavailableMessage(entry.serverId, upstream));
      return finish(result, { action: 'error', bytesUpstream: 0, bytesDelivered: byteLength(result) }, unavailableMessage(entry.serverId, upstream));
    }
    const tracked = session.inflight.get(extra.requestId);
    if (tracked) tracked.upstream = entry.serverId;

    const timeoutMs = values?.timeoutMs ?? upstream.config.timeoutMs ?? this.deps.settings().requestTimeoutMs;
    const abort = new AbortController();
    const onDownstreamAbort = () => abort.abort(extra.signal.reason ?? new Error('cancelled by the client'));
    extra.signal.addEventListener('abort', onDownstreamAbort, { once: true });
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        abort.abort(new Error('timeout'));
      }, timeoutMs);
    };
    arm();

    const { upstreamToken, route } = this.progress.open(session, extra, params._meta?.progressToken, arm);

    try {
      const upstreamParams = {
        ...params,
        name: entry.original,
        ...(forwarded !== undefined ? { arguments: forwarded } : {}),
        _meta: { ...(params._meta ?? {}), progressToken: upstreamToken },
      };
      const raw = await client.request({ method: 'tools/call', params: upstreamParams }, CallToolResultSchema, {
        signal: abort.signal,
        timeout: SDK_TIMEOUT_CEILING_MS,
      });
      await this.progress.settle(route);
      let upstreamResult = raw as CallToolResult;
      // A multi-megabyte result may arrive with its long texts still on disk; only the shaper works on
      // them as they are. The cache, masking and the pass-as-is paths need the real text.
      if (this.deps.shaper.materialize && (cache || masking || paused || upstreamResult.isError)) {
        upstreamResult = await this.deps.shaper.materialize(upstreamResult);
      }
      if (cache && values) {
        cache.set(entry.serverId, entry.original, args, upstreamResult, {
          ttlSeconds: values.cacheTtlSeconds,
          cacheErrors: values.cacheErrors,
          durationMs: Math.round((performance.now() - started) * 100) / 100,
        });
      }
      // Restoring comes first on the result path: everything after sees what the client sent.
      const result = restored(upstreamResult);
      if (paused || result.isError) return finish(result, passReport(result));
      const shaped = await shapeRestored(result);
      return finish(shaped.delivered, shaped);
    } catch (err) {
      await route?.chain;
      if (extra.signal.aborted) throw err; // the client cancelled: the SDK drops the response anyway
      let message: string;
      if (timedOut) {
        message = `Server "${entry.serverId}" did not answer "${entry.original}" within ${Math.round(timeoutMs / 1000)} s (timeout); the call was cancelled.`;
      } else if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) {
        message = `Server "${entry.serverId}" closed the connection during "${entry.original}" (it may have crashed); Spillway is reconnecting.`;
      } else if (err instanceof McpError && err.code !== ErrorCode.InternalError && err.code !== ErrorCode.RequestTimeout) {
        // A protocol error from the upstream (e.g. invalid params) goes back as the same error, once-prefixed.
        finish(errorResult(bareMessage(err)), { action: 'error', bytesUpstream: 0, bytesDelivered: 0 }, bareMessage(err));
        throw rpcError(err.code, bareMessage(err), err.data);
      } else if (isUnreachable(err)) {
        message = `Server "${entry.serverId}" cannot be reached (${bareMessage(err)}); Spillway will reconnect.`;
        upstream.reportUnreachable(message);
      } else {
        message = `Server "${entry.serverId}" failed on "${entry.original}": ${bareMessage(err)}`;
      }
      const result = errorResult(message);
      return finish(result, { action: 'error', bytesUpstream: 0, bytesDelivered: byteLength(result) }, message);
    } finally {
      clearTimeout(timer);
      extra.signal.removeEventListener('abort', onDownstreamAbort);
      if (upstreamToken) this.progress.close(upstreamToken);
    }
  }
}
