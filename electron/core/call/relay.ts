/**
 * The hub's SessionRouter: the request path between downstream sessions and upstream servers. tools/call
 * (Spillway's own tools, else the pipeline in tool-call.ts), resources, prompts, completion, logging, and
 * the requests upstreams send back to a client (sampling, elicitation, roots).
 */
import { McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import {
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
import { LOG_LEVELS, type DownstreamExtra, type DownstreamSession, type SessionRouter } from '../downstream/session.js';
import type { Upstream, UpstreamRequestKind } from '../upstream/upstream.js';
import { ClientRequestCount } from './cached-result.js';
import { ProgressRoutes, waitWithProgress } from './progress-routes.js';
import type { CallOptions, OwnTool, RelayDeps } from './relay-contract.js';
import { ResourceSubscriptions } from './resource-subscriptions.js';
import { bareMessage, rpcError, unavailableMessage } from './relay-errors.js';
import { ToolCallPipeline } from './tool-call.js';

const RELAYED_REQUEST_TIMEOUT_MS = 10 * 60_000;

export class Relay implements SessionRouter {
  #progress = new ProgressRoutes();
  #clientRequests = new ClientRequestCount();
  #toolCalls: ToolCallPipeline;
  #subscriptions: ResourceSubscriptions;
  /** Closed sessions with requests still in flight: what an upstream asks meanwhile is theirs, no one else's. */
  #closedWithCalls = new Set<DownstreamSession>();
  #ownNames: { tools: OwnTool[]; byName: Map<string, OwnTool> } | undefined;

  constructor(private readonly deps: RelayDeps) {
    this.#toolCalls = new ToolCallPipeline(deps, this.#progress, this.#clientRequests);
    this.#subscriptions = new ResourceSubscriptions({
      serverFor: (uri) => this.#resourceServer(uri),
      upstream: (serverId) => this.#upstream(serverId),
      emit: deps.emit,
    });
  }

  // ── lists ────────────────────────────────────────────────────────────────────────────────────
  listTools(session: DownstreamSession): Tool[] | Promise<Tool[]> {
    const waiting = this.deps.beforeToolsList?.(session);
    return waiting ? waiting.then(() => this.#listTools(session)) : this.#listTools(session);
  }
  #listTools(session: DownstreamSession): Tool[] {
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

  #upstream(serverId: string): Upstream | undefined {
    return this.deps.upstreams().get(serverId);
  }

  #unavailable(serverId: string): string {
    return unavailableMessage(serverId, this.#upstream(serverId));
  }

  /**
   * The upstream, started first when it is not connected yet: a server on first use (issue 18) or one
   * still starting serves its resources and prompts as a call of its tools would be (bounded wait).
   */
  async #startedUpstream(serverId: string, extra?: DownstreamExtra): Promise<Upstream | undefined> {
    const up = this.#upstream(serverId);
    const untilStarted = this.deps.untilStarted;
    if (up && !up.client && untilStarted) {
      // A client that asked for progress hears what its request waits for.
      if (extra) await waitWithProgress(extra, (onWait) => untilStarted(serverId, onWait));
      else await untilStarted(serverId);
    }
    return this.#upstream(serverId);
  }

  // ── tools/call ──────────────────────────────────────────────────────────────────────────────
  // Not async, like callUpstreamTool: each async layer that returns a promise costs the answer extra turns.
  callTool(session: DownstreamSession, params: CallToolRequest['params'], extra: DownstreamExtra): Promise<CallToolResult> {
    const own = this.#ownTool(params.name);
    if (!own) return this.#toolCalls.call(session, params, extra);
    try {
      return own.call(params.arguments ?? {}, { session, extra });
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * The own tool of that name. Names are read once per list: an own tool's `tool` may be built on every
   * read (dispatch's description lists the servers behind it), its name never changes.
   */
  #ownTool(name: string): OwnTool | undefined {
    const tools = this.deps.ownTools();
    if (this.#ownNames?.tools !== tools) this.#ownNames = { tools, byName: new Map(tools.map((t) => [t.tool.name, t])) };
    return this.#ownNames.byName.get(name);
  }

  /**
   * Calls an upstream tool by its exposed name through the whole pipeline (policies, cache, timeout,
   * shaper, ledger). Direct calls and spillway__dispatch's `call` both come here.
   */
  callUpstreamTool(
    session: DownstreamSession,
    params: CallToolRequest['params'],
    extra: DownstreamExtra,
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    return this.#toolCalls.call(session, params, extra, options);
  }

  /** Progress from an upstream, relayed at once on the downstream request's own stream. */
  onUpstreamProgress(_serverId: string, params: { progressToken: string | number; progress: number; total?: number; message?: string }): void {
    this.#progress.relay(params);
  }

  // ── resources ───────────────────────────────────────────────────────────────────────────────
  async #resourceServer(uri: string, extra?: DownstreamExtra): Promise<Upstream> {
    const serverId = this.deps.catalog.serverForUri(uri);
    if (!serverId) throw rpcError(ErrorCode.InvalidParams, `Resource not found: ${uri} (no connected server offers it)`);
    const up = await this.#startedUpstream(serverId, extra);
    if (!up?.client) throw rpcError(ErrorCode.InternalError, this.#unavailable(serverId));
    return up;
  }

  async readResource(session: DownstreamSession, params: ReadResourceRequest['params'], extra: DownstreamExtra): Promise<ReadResourceResult> {
    const own = this.deps.ownResources;
    if (own?.matches(params.uri)) return own.read(params.uri, session);
    const up = await this.#resourceServer(params.uri, extra);
    return this.#forward(session, up, { method: 'resources/read', params }, ReadResourceResultSchema, extra) as Promise<ReadResourceResult>;
  }

  subscribe(session: DownstreamSession, uri: string): Promise<void> {
    return this.#subscriptions.subscribe(session, uri);
  }

  unsubscribe(session: DownstreamSession, uri: string): Promise<void> {
    return this.#subscriptions.unsubscribe(session, uri);
  }

  onResourceUpdated(_serverId: string, uri: string): void {
    for (const s of this.#subscriptions.subscribers(uri)) void s.server.sendResourceUpdated({ uri }).catch(() => undefined);
  }

  /** An upstream is ready (started, restarted, reconnected): the subscriptions sessions hold there are renewed. */
  upstreamReady(serverId: string): void {
    this.#subscriptions.upstreamReady(serverId);
  }

  // ── prompts and completion ──────────────────────────────────────────────────────────────────
  async getPrompt(session: DownstreamSession, params: GetPromptRequest['params'], extra: DownstreamExtra) {
    const entry = this.deps.catalog.prompt(params.name);
    if (!entry) throw rpcError(ErrorCode.InvalidParams, `Unknown prompt: ${params.name}`);
    const up = await this.#startedUpstream(entry.serverId, extra);
    if (!up?.client) throw rpcError(ErrorCode.InternalError, this.#unavailable(entry.serverId));
    return this.#forward(session, up, { method: 'prompts/get', params: { ...params, name: entry.original } }, GetPromptResultSchema, extra);
  }

  async complete(session: DownstreamSession, params: CompleteRequest['params'], extra: DownstreamExtra): Promise<CompleteResult> {
    const empty: CompleteResult = { completion: { values: [], hasMore: false } };
    let up: Upstream | undefined;
    let ref = params.ref;
    if (ref.type === 'ref/prompt') {
      const entry = this.deps.catalog.prompt(ref.name);
      if (!entry) throw rpcError(ErrorCode.InvalidParams, `Unknown prompt: ${ref.name}`);
      up = await this.#startedUpstream(entry.serverId, extra);
      ref = { ...ref, name: entry.original };
    } else {
      const serverId = this.deps.catalog.serverForTemplate(ref.uri) ?? this.deps.catalog.serverForUri(ref.uri);
      up = serverId ? await this.#startedUpstream(serverId, extra) : undefined;
    }
    if (!up?.client || !up.capabilities?.completions) return empty;
    return this.#forward(
      session,
      up,
      { method: 'completion/complete', params: { ...params, ref } },
      CompleteResultSchema,
      extra,
    ) as Promise<CompleteResult>;
  }

  /** Sends a client's request on to its upstream; what that upstream asks a client meanwhile goes back to this one. */
  async #forward(
    session: DownstreamSession,
    up: Upstream,
    request: { method: string; params?: Record<string, unknown> },
    schema: Parameters<NonNullable<Upstream['client']>['request']>[1],
    extra: DownstreamExtra,
  ) {
    session.waitsOn(extra.requestId, up.id);
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
  /**
   * Who gets a request an upstream sends a client. Sampling and elicitation belong to the request the
   * upstream is serving: they go to the session whose request to that upstream is in flight (the newest
   * such request; it goes out on that request's stream) even when that session cannot answer, since
   * another client must never see them. Roots belong to a client, not to a call: they go to a session
   * that can answer, the caller's if it can (its folders are the ones its call works in). Otherwise, and
   * for a request sent while nothing waits on the upstream, the most recently active session that can answer.
   */
  pickSession(serverId: string, kind: UpstreamRequestKind): { session: DownstreamSession; relatedRequestId?: string | number } | undefined {
    const able = (s: DownstreamSession) => !s.closed && s.can(kind);
    const caller = this.#caller(serverId, kind === 'roots' ? able : () => true);
    if (caller) return caller;
    const newest = [...this.deps.sessions()]
      .filter(able)
      .sort((a, b) => a.lastActivityMs - b.lastActivityMs)
      .pop();
    return newest ? { session: newest } : undefined;
  }

  /** The session (among those `eligible`) with the newest request in flight to that upstream. */
  #caller(
    serverId: string,
    eligible: (s: DownstreamSession) => boolean,
  ): { session: DownstreamSession; relatedRequestId: string | number } | undefined {
    let caller: { session: DownstreamSession; relatedRequestId: string | number; since: number } | undefined;
    this.#forgetFinishedCalls();
    for (const s of [...this.deps.sessions(), ...this.#closedWithCalls]) {
      if (!eligible(s)) continue;
      for (const [requestId, call] of s.inflight) {
        if (call.upstream === serverId && (!caller || (call.since ?? 0) >= caller.since)) {
          caller = { session: s, relatedRequestId: requestId, since: call.since ?? 0 };
        }
      }
    }
    return caller && { session: caller.session, relatedRequestId: caller.relatedRequestId };
  }

  async routeRequest(
    serverId: string,
    kind: UpstreamRequestKind,
    request: { method: string; params?: Record<string, unknown> },
    extra: RequestHandlerExtra<never, never>,
  ): Promise<Record<string, unknown>> {
    // Counted first, also when no client can answer: what the upstream made of it is not cached.
    this.#clientRequests.add(serverId);
    const target = this.pickSession(serverId, kind);
    if (!target) throw rpcError(ErrorCode.InvalidRequest, noClientCan(kind, request.method));
    const refusal = callerRefusal(target.session, kind, request.method);
    if (refusal) {
      this.deps.emit({ type: 'log', level: 'warn', server: serverId, message: `Server "${serverId}" sent ${request.method}: ${refusal}` });
      throw rpcError(ErrorCode.InvalidRequest, refusal);
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
    this.#subscriptions.sessionClosed(session);
    this.#forgetFinishedCalls();
    if (session.inflight.size > 0) this.#closedWithCalls.add(session);
    this.deps.onSessionClosed(session);
  }

  /** Closed sessions whose last request has finished own nothing an upstream may ask any more. */
  #forgetFinishedCalls(): void {
    for (const s of this.#closedWithCalls) if (s.inflight.size === 0) this.#closedWithCalls.delete(s);
  }
}

/** What an upstream is told when no connected client can answer its request. */
function noClientCan(kind: UpstreamRequestKind, method: string): string {
  if (kind === 'roots') {
    return (
      `No connected client shares its folders (roots), which ${method} asks for. Connect a client that shares ` +
      'its folders if this server needs them.'
    );
  }
  return `No connected client supports ${kind}, which ${method} needs. Use a client that supports ${kind} for this.`;
}

/** Why the session a request belongs to cannot take it (closed, or without the capability); undefined: it can. */
function callerRefusal(session: DownstreamSession, kind: UpstreamRequestKind, method: string): string | undefined {
  const client = session.clientName ? `"${session.clientName}"` : 'that made the request';
  if (session.closed) return `The client ${client} disconnected before it could answer ${method}.`;
  if (session.can(kind)) return undefined;
  return (
    `The client ${client} does not support ${kind}, which ${method} needs. Spillway never passes it to another ` +
    `client; use a client that supports ${kind} for this.`
  );
}
