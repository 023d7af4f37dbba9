/**
 * The request path between downstream sessions and upstream servers: tools/call with progress,
 * cancellation and timeouts, resources, prompts, completion, logging, and the requests upstreams send
 * back to a client (sampling, elicitation, roots).
 */
import { randomUUID } from 'node:crypto';
import { McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import {
  CallToolResultSchema,
  CompleteResultSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  GetPromptResultSchema,
  ListRootsResultSchema,
  ReadResourceResultSchema,
  type CallToolRequest,
  type CallToolResult,
  type CompleteRequest,
  type CompleteResult,
  type GetPromptRequest,
  type LoggingLevel,
  type ReadResourceRequest,
  type ReadResourceResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Settings } from '../../../shared/config.js';
import type { HubEventInput, ResultAction } from '../../../shared/events.js';
import type { EffectiveValues, PiiPolicy } from '../../../shared/policy.js';
import type { Catalog, ToolEntry } from '../catalog/catalog.js';
import { takeCompressionFields } from '../compress/compression-fields.js';
import { createMasker, type PiiMasker } from '../pii/pii-masker.js';
import { restore, type PiiVault } from '../pii/pii-vault.js';
import type { CallCache } from '../policy/call-cache.js';
import type { CallPolicy } from '../policy/resolve.js';
import { prepareArguments } from '../policy/schema-rewrite.js';
import type { Upstream, UpstreamRequestKind } from '../upstream/upstream.js';
import { LOG_LEVELS, type DownstreamExtra, type DownstreamSession, type SessionRouter, type SessionTransportKind } from './session.js';

/** Spillway's own tools (read_result, later dispatch). */
export interface OwnTool {
  tool: Tool;
  call(args: Record<string, unknown>, ctx: { session: DownstreamSession; extra: DownstreamExtra }): Promise<CallToolResult>;
}

export interface TokenCountResult {
  tokens: number;
  estimated: boolean;
}

/** What a shaper did with one result. */
export interface ShapeReport {
  delivered: CallToolResult;
  action: ResultAction;
  bytesUpstream: number;
  bytesDelivered: number;
  tokensUpstream?: number;
  tokensDelivered?: number;
  handle?: string;
  note?: string;
  /** Exact counts for the ledger, made off the request path. */
  countUpstreamTokens?: () => Promise<TokenCountResult>;
  countDeliveredTokens?: () => Promise<TokenCountResult>;
}

/** The tool's effective result policy; when given it replaces settings.spill for this call. */
export type ResultPolicy = Pick<EffectiveValues, 'action' | 'thresholdTokens' | 'previewTokens'>;

/** What the compression step needs beyond the result policy (action 'compress', issue 8). */
export interface CompressRequest {
  /** `_spillway_goal`: what the calling model said it needs. */
  goal?: string;
  /** `_spillway_bypass`: the calling model asked for no compression (the result spills as usual). */
  bypass?: boolean;
  /** The tool policy's compressInstructions. */
  instructions?: string;
  /** The tool policy's compressMaxTokens (before retry escalation). */
  maxTokens?: number;
}

/** What happens to a finished upstream result (spill/truncate/compress/pass). */
export interface ResultShaper {
  shape(
    result: CallToolResult,
    ctx: {
      serverId: string;
      tool: string;
      client?: string;
      callId: string;
      transport: SessionTransportKind;
      policy?: ResultPolicy;
      compress?: CompressRequest;
      /** Aborted when the client cancels the call (stops a compression in flight). */
      signal?: AbortSignal;
    },
  ): Promise<ShapeReport>;
}

/** How one call is made beyond its arguments (dispatch's `resultToSpill`). */
export interface CallOptions {
  resultToSpill?: boolean;
}

/** One finished call, for the ledger. */
export interface FinishedCall {
  callId: string;
  session: DownstreamSession;
  server: string;
  tool: string;
  /** The name the client called (namespaced). */
  exposedName: string;
  durationMs: number;
  report: ShapeReport;
}

/** Own resources (spillway://...) served by Spillway itself. */
export interface OwnResources {
  matches(uri: string): boolean;
  read(uri: string): Promise<ReadResourceResult>;
}

export interface RelayDeps {
  upstreams: () => Map<string, Upstream>;
  catalog: Catalog;
  sessions: () => Iterable<DownstreamSession>;
  settings: () => Settings;
  emit: (event: HubEventInput) => void;
  ownTools: () => OwnTool[];
  ownResources?: OwnResources;
  shaper: ResultShaper;
  onSessionReady: (session: DownstreamSession) => void;
  onSessionClosed: (session: DownstreamSession) => void;
  onCallFinished?: (call: FinishedCall) => void;
  onToolsListed?: (session: DownstreamSession) => void;
  /** The effective policy of a tool (defaults ← server ← tool); without it, settings alone apply. */
  policy?: (entry: ToolEntry) => CallPolicy;
  /** The tool-call cache (used when a tool's effective cacheTtlSeconds is above 0). */
  cache?: CallCache;
}

interface ProgressRoute {
  session: DownstreamSession;
  extra: DownstreamExtra;
  downstreamToken: string | number;
  /** Serializes relayed notifications so the result never overtakes the last progress. */
  chain: Promise<void>;
  /** When the last progress notification went out. */
  lastSentAt?: number;
  onProgress: () => void;
}

const RELAYED_REQUEST_TIMEOUT_MS = 10 * 60_000;
/** Longest the SDK itself may wait; our own timer (reset by progress) is what actually times out. */
const SDK_TIMEOUT_CEILING_MS = 24 * 3600_000;

/** Strips the SDK's `MCP error <code>: ` prefix so relayed errors do not double it. */
/** How long a stdio result waits behind a progress notification (see onUpstreamProgress). */
const STDIO_PROGRESS_FENCE_MS = 3;

export function bareMessage(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return msg.replace(/^(MCP error -?\d+: )+/, '');
}

/**
 * A JSON-RPC error to throw from a handler. Not an McpError: its message already carries the
 * `MCP error <code>:` prefix, which the receiving SDK adds again.
 */
export function rpcError(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, data });
}

/** A network-level failure (the HTTP server is gone), as opposed to an answer from the server. */
export function isUnreachable(err: unknown): boolean {
  const e = err as Error & { cause?: { code?: string }; code?: string };
  const code = e?.cause?.code ?? e?.code;
  return (
    (typeof code === 'string' && ['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENOTFOUND', 'UND_ERR_SOCKET'].includes(code)) ||
    /fetch failed|ECONNREFUSED|socket hang up/i.test(e?.message ?? '')
  );
}

export function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

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

export class Relay implements SessionRouter {
  #maskers = new Map<string, PiiMasker>();
  #progress = new Map<string, ProgressRoute>();
  #progressSeq = 0;
  #subscriptions = new Map<string, number>();

  constructor(private readonly deps: RelayDeps) {}

  // ── lists ────────────────────────────────────────────────────────────────────────────────────
  listTools(session: DownstreamSession): Tool[] {
    const tools = this.deps.catalog.listTools();
    this.deps.onToolsListed?.(session);
    return tools;
  }
  listResources() {
    return this.deps.catalog.listResources();
  }
  listResourceTemplates() {
    return this.deps.catalog.listResourceTemplates();
  }
  listPrompts() {
    return this.deps.catalog.listPrompts();
  }

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

  #upstream(serverId: string): Upstream | undefined {
    return this.deps.upstreams().get(serverId);
  }

  #unavailable(serverId: string): string {
    const up = this.#upstream(serverId);
    if (!up) return `Server "${serverId}" is not configured in Spillway.`;
    const why = up.status === 'error' && up.error ? `: ${up.error}` : '';
    return `Server "${serverId}" is not available right now (status: ${up.status}${why}).`;
  }

  // ── tools/call ──────────────────────────────────────────────────────────────────────────────
  async callTool(session: DownstreamSession, params: CallToolRequest['params'], extra: DownstreamExtra): Promise<CallToolResult> {
    const own = this.deps.ownTools().find((t) => t.tool.name === params.name);
    if (own) return own.call(params.arguments ?? {}, { session, extra });
    return this.callUpstreamTool(session, params, extra);
  }

  /**
   * Calls an upstream tool by its exposed name through the whole pipeline (policies, cache, timeout,
   * shaper, ledger). Direct calls and spillway__dispatch's `call` both come here.
   */
  async callUpstreamTool(
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

    const upstream = this.#upstream(entry.serverId);
    const client = upstream?.client;
    if (!upstream || !client) {
      const result = errorResult(this.#unavailable(entry.serverId));
      return finish(result, { action: 'error', bytesUpstream: 0, bytesDelivered: byteLength(result) }, this.#unavailable(entry.serverId));
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

    const downstreamToken = params._meta?.progressToken;
    let route: ProgressRoute | undefined;
    let upstreamToken: string | undefined;
    if (downstreamToken !== undefined) {
      upstreamToken = `spillway-${++this.#progressSeq}`;
      route = { session, extra, downstreamToken, chain: Promise.resolve(), onProgress: arm };
      this.#progress.set(upstreamToken, route);
    } else {
      // Progress still resets the timeout even when the client did not ask for it.
      upstreamToken = `spillway-${++this.#progressSeq}`;
      this.#progress.set(upstreamToken, { session, extra, downstreamToken: '', chain: Promise.resolve(), onProgress: arm });
    }

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
      await this.#afterProgress(route);
      const upstreamResult = raw as CallToolResult;
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
      if (upstreamToken) this.#progress.delete(upstreamToken);
    }
  }

  /**
   * Waits until the relayed progress is out. Over stdio, an SDK client drops a progress notification it
   * reads in the same chunk as the result (its response handler runs first), so the result also waits a
   * moment behind the last one.
   */
  async #afterProgress(route: ProgressRoute | undefined): Promise<void> {
    if (!route) return;
    await route.chain;
    if (route.session.kind !== 'stdio' || route.lastSentAt === undefined) return;
    const wait = STDIO_PROGRESS_FENCE_MS - (performance.now() - route.lastSentAt);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }

  /** Progress from an upstream, relayed at once on the downstream request's own stream. */
  onUpstreamProgress(_serverId: string, params: { progressToken: string | number; progress: number; total?: number; message?: string }): void {
    const route = this.#progress.get(String(params.progressToken));
    if (!route) return;
    route.onProgress();
    if (route.downstreamToken === '') return;
    const notification = {
      method: 'notifications/progress' as const,
      params: { ...params, progressToken: route.downstreamToken },
    };
    route.chain = route.chain.then(() =>
      route.extra
        .sendNotification(notification)
        .catch(() => undefined)
        .then(() => {
          route.lastSentAt = performance.now();
        }),
    );
  }

  // ── resources ───────────────────────────────────────────────────────────────────────────────
  #resourceServer(uri: string): Upstream {
    const serverId = this.deps.catalog.serverForUri(uri);
    if (!serverId) throw rpcError(ErrorCode.InvalidParams, `Resource not found: ${uri} (no connected server offers it)`);
    const up = this.#upstream(serverId);
    if (!up?.client) throw rpcError(ErrorCode.InternalError, this.#unavailable(serverId));
    return up;
  }

  async readResource(_session: DownstreamSession, params: ReadResourceRequest['params'], extra: DownstreamExtra): Promise<ReadResourceResult> {
    const own = this.deps.ownResources;
    if (own?.matches(params.uri)) return own.read(params.uri);
    const up = this.#resourceServer(params.uri);
    return this.#forward(up, { method: 'resources/read', params }, ReadResourceResultSchema, extra) as Promise<ReadResourceResult>;
  }

  async subscribe(_session: DownstreamSession, uri: string): Promise<void> {
    const n = this.#subscriptions.get(uri) ?? 0;
    this.#subscriptions.set(uri, n + 1);
    if (n > 0) return;
    const up = this.#resourceServer(uri);
    if (up.capabilities?.resources?.subscribe) await up.client!.subscribeResource({ uri });
  }

  async unsubscribe(_session: DownstreamSession, uri: string): Promise<void> {
    const n = (this.#subscriptions.get(uri) ?? 0) - 1;
    if (n > 0) {
      this.#subscriptions.set(uri, n);
      return;
    }
    this.#subscriptions.delete(uri);
    const serverId = this.deps.catalog.serverForUri(uri);
    const up = serverId ? this.#upstream(serverId) : undefined;
    if (up?.client && up.capabilities?.resources?.subscribe) await up.client.unsubscribeResource({ uri }).catch(() => undefined);
  }

  onResourceUpdated(_serverId: string, uri: string): void {
    for (const s of this.deps.sessions()) {
      if (s.subscriptions.has(uri) && !s.closed) void s.server.sendResourceUpdated({ uri }).catch(() => undefined);
    }
  }

  // ── prompts and completion ──────────────────────────────────────────────────────────────────
  async getPrompt(_session: DownstreamSession, params: GetPromptRequest['params'], extra: DownstreamExtra) {
    const entry = this.deps.catalog.prompt(params.name);
    if (!entry) throw rpcError(ErrorCode.InvalidParams, `Unknown prompt: ${params.name}`);
    const up = this.#upstream(entry.serverId);
    if (!up?.client) throw rpcError(ErrorCode.InternalError, this.#unavailable(entry.serverId));
    return this.#forward(up, { method: 'prompts/get', params: { ...params, name: entry.original } }, GetPromptResultSchema, extra);
  }

  async complete(_session: DownstreamSession, params: CompleteRequest['params'], extra: DownstreamExtra): Promise<CompleteResult> {
    const empty: CompleteResult = { completion: { values: [], hasMore: false } };
    let up: Upstream | undefined;
    let ref = params.ref;
    if (ref.type === 'ref/prompt') {
      const entry = this.deps.catalog.prompt(ref.name);
      if (!entry) throw rpcError(ErrorCode.InvalidParams, `Unknown prompt: ${ref.name}`);
      up = this.#upstream(entry.serverId);
      ref = { ...ref, name: entry.original };
    } else {
      const serverId = this.deps.catalog.serverForTemplate(ref.uri) ?? this.deps.catalog.serverForUri(ref.uri);
      up = serverId ? this.#upstream(serverId) : undefined;
    }
    if (!up?.client || !up.capabilities?.completions) return empty;
    return this.#forward(up, { method: 'completion/complete', params: { ...params, ref } }, CompleteResultSchema, extra) as Promise<CompleteResult>;
  }

  async #forward(up: Upstream, request: { method: string; params?: Record<string, unknown> }, schema: Parameters<NonNullable<Upstream['client']>['request']>[1], extra: DownstreamExtra) {
    try {
      return await up.client!.request(request as never, schema, {
        signal: extra.signal,
        timeout: up.config.timeoutMs ?? this.deps.settings().requestTimeoutMs,
      });
    } catch (err) {
      if (err instanceof McpError) throw rpcError(err.code, bareMessage(err), err.data);
      throw rpcError(ErrorCode.InternalError, `Server "${up.id}": ${bareMessage(err)}`);
    }
  }

  // ── logging ─────────────────────────────────────────────────────────────────────────────────
  async setLevel(_session: DownstreamSession, _level: LoggingLevel): Promise<void> {
    // Upstreams send at the most verbose level any session asked for; each session filters its own.
    const levels = [...this.deps.sessions()].map((s) => s.logLevel).filter((l): l is LoggingLevel => Boolean(l));
    const level = levels.sort((a, b) => LOG_LEVELS.indexOf(a) - LOG_LEVELS.indexOf(b))[0];
    if (!level) return;
    await Promise.all(
      [...this.deps.upstreams().values()]
        .filter((u) => u.client && u.capabilities?.logging)
        .map((u) => u.client!.setLoggingLevel(level).catch(() => undefined)),
    );
  }

  onUpstreamLog(serverId: string, params: { level: string; logger?: string; data?: unknown }): void {
    const level = (LOG_LEVELS as string[]).includes(params.level) ? (params.level as LoggingLevel) : 'info';
    const logger = params.logger ? `${serverId}/${params.logger}` : serverId;
    for (const s of this.deps.sessions()) void s.log({ ...params, level, logger });
  }

  // ── requests from upstreams to a client ─────────────────────────────────────────────────────
  /** The session whose call to this upstream is in flight (newest), else the newest session that can answer. */
  pickSession(serverId: string, kind: UpstreamRequestKind): { session: DownstreamSession; relatedRequestId?: string | number } | undefined {
    const sessions = [...this.deps.sessions()].filter((s) => !s.closed && s.can(kind));
    for (const s of [...sessions].reverse()) {
      const calls = [...s.inflight.entries()].filter(([, v]) => v.upstream === serverId);
      if (calls.length > 0) return { session: s, relatedRequestId: calls[calls.length - 1][0] };
    }
    const newest = sessions.sort((a, b) => a.lastActivity.localeCompare(b.lastActivity)).pop();
    return newest ? { session: newest } : undefined;
  }

  async routeRequest(
    serverId: string,
    kind: UpstreamRequestKind,
    request: { method: string; params?: Record<string, unknown> },
    extra: RequestHandlerExtra<never, never>,
  ): Promise<Record<string, unknown>> {
    const target = this.pickSession(serverId, kind);
    if (!target) {
      throw rpcError(
        ErrorCode.InvalidRequest,
        `No connected client can answer ${request.method} (none declared the "${kind}" capability).`,
      );
    }
    const schema = kind === 'sampling' ? CreateMessageResultSchema : kind === 'elicitation' ? ElicitResultSchema : ListRootsResultSchema;
    this.deps.emit({ type: 'log', level: 'info', server: serverId, message: `${serverId} asked the client: ${request.method}` });
    try {
      return (await target.session.server.request(request as never, schema, {
        signal: extra.signal,
        relatedRequestId: target.relatedRequestId,
        timeout: RELAYED_REQUEST_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
      })) as Record<string, unknown>;
    } catch (err) {
      if (err instanceof McpError) throw rpcError(err.code, bareMessage(err), err.data);
      throw err;
    }
  }

  rootsChanged(): void {
    for (const up of this.deps.upstreams().values()) void up.client?.sendRootsListChanged().catch(() => undefined);
  }

  sessionReady(session: DownstreamSession): void {
    this.deps.onSessionReady(session);
  }

  sessionClosed(session: DownstreamSession): void {
    for (const uri of session.subscriptions) void this.unsubscribe(session, uri).catch(() => undefined);
    this.deps.onSessionClosed(session);
  }
}
