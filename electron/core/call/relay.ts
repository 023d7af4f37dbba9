/**
 * The hub's SessionRouter: the request path between downstream sessions and upstream servers. tools/call
 * (Spillway's own tools, else the pipeline in tool-call.ts), resources, prompts, completion, logging, and
 * the requests upstreams send back to a client (sampling, elicitation, roots).
 */
import { McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import {
  CompleteResultSchema,
  GetPromptResultSchema,
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
import { hideInValue, ServerSecrets } from './hidden-values.js';
import { UpstreamLogLevel } from './log-level.js';
import { ProgressRoutes, waitWithProgress } from './progress-routes.js';
import type { CallOptions, OwnTool, RelayDeps } from './relay-contract.js';
import { ResourceSubscriptions } from './resource-subscriptions.js';
import { bareMessage, rpcError, unavailableMessage } from './relay-errors.js';
import { ToolCallPipeline } from './tool-call.js';
import { UpstreamRequests } from './upstream-requests.js';

/** Longest the SDK itself may wait for a forwarded request; our own timer (reset by progress) is what times out. */
const SDK_TIMEOUT_CEILING_MS = 24 * 3600_000;

export class Relay implements SessionRouter {
  #progress = new ProgressRoutes();
  #toolCalls: ToolCallPipeline;
  #subscriptions: ResourceSubscriptions;
  #upstreamRequests: UpstreamRequests;
  #logLevel: UpstreamLogLevel;
  #ownNames: { tools: OwnTool[]; byName: Map<string, OwnTool> } | undefined;
  #logSecrets = new ServerSecrets(
    () => this.deps.catalog.toolEntries(),
    (entry) => this.deps.policy?.(entry),
  );

  constructor(private readonly deps: RelayDeps) {
    this.#upstreamRequests = new UpstreamRequests({ sessions: deps.sessions, emit: deps.emit });
    this.#toolCalls = new ToolCallPipeline(deps, this.#progress, this.#upstreamRequests);
    this.#subscriptions = new ResourceSubscriptions({
      serverFor: (uri) => this.#resourceServer(uri),
      upstream: (serverId) => this.#upstream(serverId),
      ownerOf: (uri) => this.deps.catalog.serverForUri(uri),
      emit: deps.emit,
    });
    this.#logLevel = new UpstreamLogLevel({ sessions: deps.sessions, upstreams: deps.upstreams });
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

  /** The hub's own URIs (kept results) are accepted here and never sent upstream: they do not change, so no update comes. */
  subscribe(session: DownstreamSession, uri: string): Promise<void> {
    if (this.deps.ownResources?.matches(uri)) return Promise.resolve();
    return this.#subscriptions.subscribe(session, uri);
  }

  unsubscribe(session: DownstreamSession, uri: string): Promise<void> {
    if (this.deps.ownResources?.matches(uri)) return Promise.resolve();
    return this.#subscriptions.unsubscribe(session, uri);
  }

  onResourceUpdated(_serverId: string, uri: string): void {
    for (const s of this.#subscriptions.subscribers(uri)) void s.server.sendResourceUpdated({ uri }).catch(() => undefined);
  }

  /**
   * An upstream is ready (started, restarted, reconnected): the subscriptions sessions hold there are
   * renewed, and it is told the logging level sessions want.
   */
  upstreamReady(serverId: string): void {
    this.#subscriptions.upstreamReady(serverId);
    this.#upstreamRequests.upstreamReady(serverId);
    const up = this.#upstream(serverId);
    if (up) this.#logLevel.upstreamReady(up);
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

  /**
   * Sends a client's request on to its upstream. Its progress goes back on the client's request, through
   * a progress route of its own as a tool call's does, and resets the timeout; what the upstream asks a
   * client meanwhile may go back to this one (upstream-requests.ts), and once the request is withdrawn
   * (cancelled, or timed out) still counts as this one's for a while.
   */
  async #forward(
    session: DownstreamSession,
    up: Upstream,
    request: { method: string; params: { _meta?: Record<string, unknown>; [key: string]: unknown } },
    schema: Parameters<NonNullable<Upstream['client']>['request']>[1],
    extra: DownstreamExtra,
  ) {
    const timeoutMs = up.config.timeoutMs ?? this.deps.settings().requestTimeoutMs;
    const deadline = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => deadline.abort(timeoutError(up.id, request.method, timeoutMs)), timeoutMs);
    };
    const { upstreamToken, route } = this.#progress.open(session, extra, extra._meta?.progressToken, arm);
    const params = { ...request.params, _meta: { ...request.params._meta, progressToken: upstreamToken } };
    session.waitsOn(extra.requestId, up.id);
    arm();
    try {
      const result = await up.client!.request({ method: request.method, params } as never, schema, {
        signal: AbortSignal.any([extra.signal, deadline.signal]),
        timeout: SDK_TIMEOUT_CEILING_MS,
      });
      await this.#progress.settle(route);
      return result;
    } catch (err) {
      if (extra.signal.aborted || deadline.signal.aborted) session.withdraw(extra.requestId, timeoutMs);
      if (route) await route.chain;
      if (err instanceof McpError) throw rpcError(err.code, bareMessage(err), err.data);
      throw rpcError(ErrorCode.InternalError, `Server "${up.id}": ${bareMessage(err)}`);
    } finally {
      clearTimeout(timer);
      this.#progress.close(upstreamToken);
    }
  }

  // ── logging ─────────────────────────────────────────────────────────────────────────────────
  async setLevel(_session: DownstreamSession, _level: LoggingLevel): Promise<void> {
    await this.#logLevel.update(true);
  }

  /** A log message of an upstream, to every session, with the hidden secrets of its tools replaced in its data. */
  onUpstreamLog(serverId: string, params: { level: string; logger?: string; data?: unknown }): void {
    const level = (LOG_LEVELS as string[]).includes(params.level) ? (params.level as LoggingLevel) : 'info';
    const logger = params.logger ? `${serverId}/${params.logger}` : serverId;
    const mask = params.data === undefined ? undefined : this.#logSecrets.mask(serverId);
    const data = mask ? hideInValue(mask, params.data) : params.data;
    for (const s of this.deps.sessions()) void s.log({ ...params, level, logger, data });
  }

  // ── requests from upstreams to a client (who gets them: upstream-requests.ts) ───────────────
  routeRequest(
    serverId: string,
    kind: UpstreamRequestKind,
    request: { method: string; params?: Record<string, unknown> },
    extra: RequestHandlerExtra<never, never>,
  ): Promise<Record<string, unknown>> {
    return this.#upstreamRequests.route(serverId, kind, request, extra);
  }

  /**
   * Not passed on to upstreams: their roots/list outside a call is answered with no roots whoever changed
   * theirs, and one client's change must not make a server ask for folders on behalf of every client.
   */
  rootsChanged(): void {}

  sessionReady(session: DownstreamSession): void {
    this.deps.onSessionReady(session);
    // A session that set no level wants every level.
    void this.#logLevel.update(false);
  }

  sessionClosed(session: DownstreamSession): void {
    this.#subscriptions.sessionClosed(session);
    this.#upstreamRequests.sessionClosed(session);
    this.deps.onSessionClosed(session);
    void this.#logLevel.update(false);
  }
}

/** What a forwarded request that got no answer in time is failed with (the upstream is told it was cancelled). */
function timeoutError(serverId: string, method: string, timeoutMs: number): McpError {
  return new McpError(
    ErrorCode.RequestTimeout,
    `Server "${serverId}" did not answer ${method} within ${Math.round(timeoutMs / 1000)} s (timeout); the request was cancelled.`,
  );
}
