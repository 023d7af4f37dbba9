/**
 * One downstream MCP session: a low-level SDK `Server` (a Server serves exactly one transport) wired to
 * the hub's router. Records the client's name, version and last activity.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  RootsListChangedNotificationSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolRequest,
  type CallToolResult,
  type CompleteRequest,
  type CompleteResult,
  type GetPromptRequest,
  type GetPromptResult,
  type LoggingLevel,
  type Prompt,
  type ReadResourceRequest,
  type ReadResourceResult,
  type RequestId,
  type Resource,
  type ResourceTemplate,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { DroppedNotification } from './fast-tool-calls.js';
import { DeliveryError } from '../wire/ordered-delivery.js';
import type { DownstreamExtra } from './request-extra.js';

export type { DownstreamExtra } from './request-extra.js';
/** How the client reaches us: 'bridge' for the app's bridge, over its socket or its HTTP fallback. */
export type SessionTransportKind = 'http' | 'stdio' | 'bridge';

/** What a session asks of the hub. */
export interface SessionRouter {
  listTools(session: DownstreamSession): Tool[] | Promise<Tool[]>;
  callTool(session: DownstreamSession, params: CallToolRequest['params'], extra: DownstreamExtra): Promise<CallToolResult>;
  listResources(session: DownstreamSession): Resource[];
  listResourceTemplates(session: DownstreamSession): ResourceTemplate[];
  readResource(session: DownstreamSession, params: ReadResourceRequest['params'], extra: DownstreamExtra): Promise<ReadResourceResult>;
  subscribe(session: DownstreamSession, uri: string): Promise<void>;
  unsubscribe(session: DownstreamSession, uri: string): Promise<void>;
  listPrompts(session: DownstreamSession): Prompt[];
  getPrompt(session: DownstreamSession, params: GetPromptRequest['params'], extra: DownstreamExtra): Promise<GetPromptResult>;
  complete(session: DownstreamSession, params: CompleteRequest['params'], extra: DownstreamExtra): Promise<CompleteResult>;
  setLevel(session: DownstreamSession, level: LoggingLevel): Promise<void>;
  rootsChanged(session: DownstreamSession): void;
  sessionReady(session: DownstreamSession): void;
  sessionClosed(session: DownstreamSession): void;
}

export const LOG_LEVELS: LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** Least time an upstream counts as still serving a request the client withdrew (DownstreamSession.withdraw). */
export const WITHDRAWN_GRACE_MS = 60_000;

export const SPILLWAY_INSTRUCTIONS =
  'Spillway aggregates several MCP servers; tool names are prefixed with their server. Large tool results are ' +
  'kept by Spillway and replaced by a preview with a handle: read more with the tool whose name ends in spillway__read_result ' +
  '(ops: stat, head, tail, slice, grep, query, read) instead of calling the tool again.';

export class DownstreamSession {
  readonly server: Server;
  readonly openedAt = new Date().toISOString();
  /** When the client last sent a request (ms); the ISO string is made only when someone reads it. */
  #lastActivityMs = Date.now();
  logLevel: LoggingLevel | undefined;
  /**
   * Downstream requests in flight (tools/call, resources/read, prompts/get, completion/complete): the
   * upstream each one waits on, and since when (performance.now()), route that upstream's requests back.
   */
  readonly inflight = new Map<string | number, { upstream?: string; since?: number }>();
  /**
   * Upstreams this session withdrew a request from (the client cancelled it, or it timed out) and until
   * when (performance.now()) each may still be working on it: most servers go on after a cancellation,
   * and what they ask a client meanwhile is this session's, though it no longer waits for the answer.
   */
  readonly withdrawn = new Map<string, number>();
  closed = false;
  /**
   * Where the session's warnings go (the hub's log), set by whoever opens it: a message the client sent
   * that was dropped without an answer (a notification nested too deeply, fast-tool-calls.ts).
   */
  onWarning: ((message: string) => void) | undefined;

  constructor(
    readonly id: string,
    readonly kind: SessionTransportKind,
    private readonly router: SessionRouter,
    version: string,
  ) {
    this.server = new Server(
      { name: 'spillway', title: 'Spillway', version },
      {
        capabilities: {
          tools: { listChanged: true },
          resources: { subscribe: true, listChanged: true },
          prompts: { listChanged: true },
          logging: {},
          completions: {},
        },
        instructions: SPILLWAY_INSTRUCTIONS,
      },
    );
    this.#register();
    this.server.oninitialized = () => router.sessionReady(this);
    // A handler that threw on a message the transport read (before, an uncaught exception) is logged too.
    // The SDK's other complaints (a notification its schema refuses) stay unlogged, as before.
    this.server.onerror = (error) => {
      if (error instanceof DroppedNotification) this.warn(error.message);
      else if (error instanceof DeliveryError) this.warn(`Spillway failed on a message it sent: ${error.message}`);
    };
    this.server.onclose = () => {
      if (this.closed) return;
      this.closed = true;
      router.sessionClosed(this);
    };
  }

  /** When the client last sent a request, as an ISO time. */
  get lastActivity(): string {
    return new Date(this.#lastActivityMs).toISOString();
  }

  /** Whether the client has sent initialize (its capabilities are known). */
  get initialized(): boolean {
    return this.server.getClientCapabilities() !== undefined;
  }

  get clientName(): string | undefined {
    return this.server.getClientVersion()?.name;
  }

  get clientVersion(): string | undefined {
    return this.server.getClientVersion()?.version;
  }

  can(capability: 'sampling' | 'elicitation' | 'roots'): boolean {
    return Boolean(this.server.getClientCapabilities()?.[capability]);
  }

  /** Serves the session over a transport (wrapped in FastToolCalls by whoever opens the session). */
  async connect(transport: Transport): Promise<void> {
    await this.server.connect(transport);
  }

  async close(): Promise<void> {
    await this.server.close().catch(() => undefined);
  }

  /** Logs `message` as the client's (onWarning), naming the client. */
  warn(message: string): void {
    this.onWarning?.(`${this.clientName ?? 'A client'} (${this.kind} session): ${message}`);
  }

  #touch(): void {
    this.#lastActivityMs = Date.now();
  }

  /** The relay's tools/call, tracked while it runs (from the SDK's handler, or the fast path's in fast-tool-calls.ts). */
  callTool(requestId: RequestId, params: CallToolRequest['params'], extra: DownstreamExtra): Promise<CallToolResult> {
    return this.track(requestId, () => this.router.callTool(this, params, extra));
  }

  /**
   * Marks a tracked request as waiting on an upstream: a request that upstream sends a client meanwhile
   * (sampling, elicitation, roots) belongs to this session and goes out on this request's stream.
   */
  waitsOn(requestId: RequestId, serverId: string): void {
    const tracked = this.inflight.get(requestId);
    if (!tracked) return;
    tracked.upstream = serverId;
    tracked.since = performance.now();
  }

  /**
   * Marks a tracked request's upstream call as withdrawn without an answer (cancelled, or timed out
   * after `timeoutMs`): it no longer waits on that upstream, which counts as still serving this session
   * for as long again as the call was allowed, at least WITHDRAWN_GRACE_MS. The upstream's late answer,
   * if it sends one, is dropped where it arrives (upstream/) and does not end this sooner.
   */
  withdraw(requestId: RequestId, timeoutMs: number): void {
    const tracked = this.inflight.get(requestId);
    const upstream = tracked?.upstream;
    if (!tracked || upstream === undefined) return;
    tracked.upstream = undefined;
    const until = performance.now() + Math.max(WITHDRAWN_GRACE_MS, timeoutMs);
    if ((this.withdrawn.get(upstream) ?? 0) < until) this.withdrawn.set(upstream, until);
  }

  /** Tracks a request for the duration of its handler. */
  async track<T>(requestId: RequestId, run: () => Promise<T>): Promise<T> {
    this.#touch();
    this.inflight.set(requestId, {});
    try {
      return await run();
    } finally {
      this.inflight.delete(requestId);
    }
  }

  /**
   * A list request (tools, resources, templates, prompts): every list is given whole, without a
   * `nextCursor`, so any cursor a client sends is none the hub gave. Per the spec's pagination section an
   * invalid cursor is refused with -32602; answering the whole list again, a paginating client appended it
   * to what it had.
   */
  #listed(req: { method: string; params?: { cursor?: unknown } }): void {
    this.#touch();
    const cursor = req.params?.cursor;
    if (cursor === undefined) return;
    const message =
      `Invalid params: unknown cursor ${JSON.stringify(String(cursor).slice(0, 100))}: Spillway gives the whole list at once, ` +
      `without a nextCursor, so ${req.method} takes no cursor. Ask again without one.`;
    // The SDK answers a handler's error with its code and message.
    throw Object.assign(new Error(message), { code: ErrorCode.InvalidParams });
  }

  #register(): void {
    const r = this.router;
    const s = this.server;
    s.setRequestHandler(ListToolsRequestSchema, async (req) => (this.#listed(req), { tools: await r.listTools(this) }));
    s.setRequestHandler(CallToolRequestSchema, (req, extra) => this.callTool(extra.requestId, req.params, extra));
    s.setRequestHandler(ListResourcesRequestSchema, async (req) => (this.#listed(req), { resources: r.listResources(this) }));
    s.setRequestHandler(ListResourceTemplatesRequestSchema, async (req) => (this.#listed(req), { resourceTemplates: r.listResourceTemplates(this) }));
    s.setRequestHandler(ReadResourceRequestSchema, (req, extra) => this.track(extra.requestId, () => r.readResource(this, req.params, extra)));
    // The router keeps who subscribed to what: a subscription counts only once the upstream accepted it.
    s.setRequestHandler(SubscribeRequestSchema, async (req) => {
      this.#touch();
      await r.subscribe(this, req.params.uri);
      return {};
    });
    s.setRequestHandler(UnsubscribeRequestSchema, async (req) => {
      this.#touch();
      await r.unsubscribe(this, req.params.uri);
      return {};
    });
    s.setRequestHandler(ListPromptsRequestSchema, async (req) => (this.#listed(req), { prompts: r.listPrompts(this) }));
    s.setRequestHandler(GetPromptRequestSchema, (req, extra) => this.track(extra.requestId, () => r.getPrompt(this, req.params, extra)));
    s.setRequestHandler(CompleteRequestSchema, (req, extra) => this.track(extra.requestId, () => r.complete(this, req.params, extra)));
    s.setRequestHandler(SetLevelRequestSchema, async (req) => {
      this.#touch();
      this.logLevel = req.params.level;
      await r.setLevel(this, req.params.level);
      return {};
    });
    s.setNotificationHandler(RootsListChangedNotificationSchema, async () => r.rootsChanged(this));
  }

  /** Sends a log message if the client asked for this level (or set none). */
  async log(params: { level: LoggingLevel; logger?: string; data?: unknown }): Promise<void> {
    if (this.closed) return;
    if (this.logLevel && LOG_LEVELS.indexOf(params.level) < LOG_LEVELS.indexOf(this.logLevel)) return;
    await this.server.notification({ method: 'notifications/message', params }).catch(() => undefined);
  }
}
