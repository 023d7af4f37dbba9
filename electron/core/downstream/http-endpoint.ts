/**
 * The local HTTP endpoint: MCP Streamable HTTP at /mcp (stateful sessions), the control API at /api and
 * the UI at /. Bound to 127.0.0.1 only; every request's Host and Origin are checked (DNS rebinding) and
 * a bearer token is required.
 *
 * A POST carrying one plain tools/call on an initialized session takes the lean path (issue 12): the
 * session's FastToolCalls answers it straight onto the response (http-call-reply.ts), without the SDK
 * transport's per-request work (a Web Request and Response per POST, a stream, zod on every message).
 * Everything else, and any request the SDK transport would refuse, goes to the SDK transport as before.
 * Sessions their clients abandon (no DELETE) are closed once idle, or past a cap (session-reaping.ts).
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ErrorCode, isInitializeRequest, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { FastToolCalls } from './fast-tool-calls.js';
import { HeldNotifications } from './held-notifications.js';
import { HttpCallReply } from './http-call-reply.js';
import {
  bearerToken,
  jsonAcceptable,
  jsonRpcError,
  nestedNotification,
  NOT_JSON,
  OversizedAnswer,
  readJson,
  sdkTakesHeaders,
  sendJson,
  toolCall,
  versionAccepted,
} from './http-messages.js';
import type { DownstreamSession, SessionTransportKind } from './session.js';
import {
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_SESSIONS,
  sessionsToReap,
  type HttpSessionLimits,
  type ReapReason,
  type SessionUse,
} from './session-reaping.js';

export const LOOPBACK = '127.0.0.1';

export interface EndpointHooks {
  /** Checks a bearer token; returns who holds it (undefined = refused). */
  authenticate(token: string): { clientId?: string } | undefined;
  /** Creates (but does not connect) a session for a new MCP client. */
  createSession(id: string, clientId: string | undefined, kind: SessionTransportKind): DownstreamSession;
  /** Control API, UI and anything else that is not /mcp. Return false to answer 404. */
  handleOther?(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean>;
  /**
   * GET /oauth/callback, the browser's redirect after an upstream sign-in (issue 15): no bearer token (the
   * browser has none); the handler checks the state. Answers an HTML page.
   */
  oauthCallback?(query: URLSearchParams): Promise<{ status: number; html: string }>;
  /** A session is being closed without its client asking (session-reaping.ts); its later requests get 404. */
  onSessionReaped?(session: DownstreamSession, reason: ReapReason, idleMs: number): void;
  /** A session's warnings (a message of its client's dropped without an answer), for the log. */
  onWarning?(message: string): void;
}

export { tokensEqual } from '../files/access-token.js';
export { bearerToken, sendJson } from './http-messages.js';

/** Hosts a local page may legitimately use to reach us. */
export function allowedHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
}

/** Origins allowed to call us from a browser: only our own UI. A request without Origin is not a browser's. */
export function originAllowed(origin: string | undefined, port: number): boolean {
  if (origin === undefined) return true;
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`].includes(origin);
}

/** The header the bridge's HTTP fallback sends: its session is a 'bridge' one (client-pipe limits apply). */
export const BRIDGE_HEADER = 'x-spillway-bridge';

interface HttpSession extends SessionUse {
  transport: SessionTransport;
  /** The transport the session's SDK Server is connected to: the fast path in front of `transport`. */
  calls: FastToolCalls;
  /** Between the fast path and `transport`: holds list changes while the client has no GET stream open. */
  held: HeldNotifications;
  session: DownstreamSession;
  clientId?: string;
}

export class HttpEndpoint {
  #server: HttpServer | undefined;
  #sessions = new Map<string, HttpSession>();
  #hosts = new Set<string>();
  readonly #limits: { idleTimeoutMs: number; maxSessions: number };
  readonly #now: () => number;
  #sweeping: NodeJS.Timeout | undefined;
  port = 0;
  /** Told whenever a request arrives with a client's own token (for "last seen"). */
  onClientSeen: ((clientId: string) => void) | undefined;

  constructor(
    private readonly hooks: EndpointHooks,
    limits: HttpSessionLimits = {},
  ) {
    this.#limits = { idleTimeoutMs: limits.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS, maxSessions: limits.maxSessions ?? DEFAULT_MAX_SESSIONS };
    this.#now = limits.now ?? Date.now;
  }

  get url(): string {
    return `http://${LOOPBACK}:${this.port}/mcp`;
  }

  get origin(): string {
    return `http://${LOOPBACK}:${this.port}`;
  }

  async listen(port: number): Promise<void> {
    const server = createServer((req, res) => {
      void this.#handle(req, res).catch((err: Error & { status?: number }) => {
        // A body too large is left unread: the connection closes after the answer.
        if (!res.headersSent) jsonRpcError(res, err.status ?? 500, err.message, -32000, err.status === 413 ? { connection: 'close' } : {});
        else res.end();
      });
    });
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, LOOPBACK, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.#server = server;
    this.port = (server.address() as AddressInfo).port;
    this.#hosts = allowedHosts(this.port);
    // Idle sessions are looked for a few times per timeout, at most once a minute.
    const every = Math.min(60_000, Math.max(10, Math.floor(this.#limits.idleTimeoutMs / 4)));
    this.#sweeping = setInterval(() => this.reapSessions(), every);
    this.#sweeping.unref();
  }

  /** The listening socket's address (tests check it is loopback). */
  address(): AddressInfo {
    return this.#server!.address() as AddressInfo;
  }

  sessionCount(): number {
    return this.#sessions.size;
  }

  /**
   * Closes the sessions idle past the timeout, and the least recently used ones past the cap (except
   * `keep`, the session opening); runs on a timer, and whenever a session opens.
   */
  reapSessions(keep?: string): void {
    for (const { use, reason, idleMs } of sessionsToReap(this.#sessions.values(), this.#now(), this.#limits, keep)) {
      const id = use.session.id;
      if (this.#sessions.get(id) !== use) continue;
      // Gone from the map first: from now on its requests get the 404 that makes a client start anew.
      this.#sessions.delete(id);
      this.hooks.onSessionReaped?.(use.session, reason, idleMs);
      void use.session.close();
    }
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeping);
    this.#sweeping = undefined;
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(sessions.map((s) => s.session.close()));
    const server = this.#server;
    this.#server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // DNS rebinding: a foreign page can make the browser send our port under its own Host name.
    const host = req.headers.host ?? '';
    if (!this.#hosts.has(host.toLowerCase())) {
      return jsonRpcError(res, 403, `Forbidden: Host "${host}" is not allowed`);
    }
    const origin = req.headers.origin;
    if (!originAllowed(origin, this.port)) {
      return jsonRpcError(res, 403, `Forbidden: Origin "${origin}" is not allowed`);
    }
    const target = req.url ?? '/';
    // The endpoint's own path is recognised without parsing a URL (a visible share of a small call);
    // the URL is made when something needs it.
    if (isMcpPath(target)) return this.#handleMcp(req, res, () => new URL(target, `http://${host}`));
    // A target such as `//` or `//x:y@` is no URL: the client's mistake (400), not the hub's (500).
    const url = URL.canParse(target, `http://${host}`) ? new URL(target, `http://${host}`) : undefined;
    if (!url) return sendJson(res, 400, { ok: false, code: 'invalid', message: `Not a valid request path: ${JSON.stringify(target.slice(0, 200))}` });
    if (url.pathname === '/mcp' || url.pathname === '/mcp/') return this.#handleMcp(req, res, () => url);
    if (url.pathname === '/oauth/callback' && req.method === 'GET' && this.hooks.oauthCallback) {
      const page = await this.hooks.oauthCallback(url.searchParams);
      res.writeHead(page.status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
      res.end(page.html);
      return;
    }
    if (this.hooks.handleOther && (await this.hooks.handleOther(req, res, url))) return;
    sendJson(res, 404, { ok: false, code: 'not_found', message: `No such path: ${url.pathname}` });
  }

  async #handleMcp(req: IncomingMessage, res: ServerResponse, makeUrl: () => URL): Promise<void> {
    let url: URL | undefined;
    const urlOf = () => (url ??= makeUrl());
    // `?token=` is accepted for clients that cannot set headers (e.g. the conformance suite).
    const token = bearerToken(req) ?? urlOf().searchParams.get('token') ?? undefined;
    const who = token ? this.hooks.authenticate(token) : undefined;
    if (!who) {
      return jsonRpcError(res, 401, 'Unauthorized: a valid bearer token is required (see `spillway token`)', -32001, {
        'www-authenticate': 'Bearer realm="spillway"',
      });
    }
    if (who.clientId) this.onClientSeen?.(who.clientId);
    const sessionId = req.headers['mcp-session-id'];
    const sid = Array.isArray(sessionId) ? sessionId[0] : sessionId;
    if (sid) {
      const known = this.#sessions.get(sid);
      if (!known) return jsonRpcError(res, 404, 'Session not found (it may have expired): start a new session', -32001);
      if (known.clientId !== who.clientId) return jsonRpcError(res, 403, 'Forbidden: this session belongs to another token');
      // What the SDK transport refuses by its headers alone (406, 415), it refuses before reading the body.
      if (req.method === 'POST' && !sdkTakesHeaders(req)) return known.transport.handleRequest(req, res);
      const body = req.method === 'POST' ? await readJson(req, res) : undefined;
      if (body === NOT_JSON) return;
      if (body instanceof OversizedAnswer) {
        // The request it answers fails with the limit; the POST says the answer was not taken.
        known.transport.onmessage?.(body.answer);
        return jsonRpcError(res, 413, body.message);
      }
      // A notification nested too deeply is dropped (fast-tool-calls.ts); alone in its POST, the POST says so.
      const dropped = nestedNotification(body);
      if (dropped !== undefined) {
        known.session.warn(dropped);
        return jsonRpcError(res, 400, dropped, ErrorCode.InvalidParams);
      }
      this.#inUse(known, req.method === 'GET', res);
      if (req.method === 'GET') whenStreamOpens(res, known.held);
      // Accept and Content-Type were checked above (sdkTakesHeaders).
      if (req.method === 'POST' && versionAccepted(req) && jsonAcceptable(req.headers.accept!)) {
        const call = toolCall(body);
        if (call && known.calls.serve(call, new HttpCallReply(res, sid), { requestInfo: new LazyRequestInfo(req.headers, urlOf) })) return;
      }
      if (Array.isArray(body)) known.transport.noteBatch(body, res);
      await known.transport.handleRequest(req, res, body);
      return;
    }
    const body = req.method === 'POST' ? await readJson(req, res) : undefined;
    if (body === NOT_JSON) return;
    if (body instanceof OversizedAnswer) return jsonRpcError(res, 413, body.message);
    const initializing = req.method === 'POST' && (Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body));
    if (!initializing) {
      return jsonRpcError(res, 400, 'Bad Request: no session id; send initialize first', -32000);
    }
    const id = randomUUID();
    const kind = req.headers[BRIDGE_HEADER] === '1' ? 'bridge' : 'http';
    const session = this.hooks.createSession(id, who.clientId, kind);
    if (this.hooks.onWarning) session.onWarning = (message) => this.hooks.onWarning?.(message);
    const transport = new SessionTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: () => {
        this.#sessions.set(id, { transport, calls, held, session, clientId: who.clientId, open: 0, streams: 0, lastSeenMs: this.#now() });
        if (this.#sessions.size > this.#limits.maxSessions) this.reapSessions(id);
      },
      onsessionclosed: () => {
        this.#sessions.delete(id);
      },
    });
    const held = new HeldNotifications(transport);
    const calls = new FastToolCalls(held, session, (requestId) => transport.endCancelled(requestId));
    // Set before connect: the SDK chains an onclose that exists when it connects.
    calls.onclose = () => {
      this.#sessions.delete(id);
    };
    await session.connect(calls);
    await transport.handleRequest(req, res, body);
    // Refused (a malformed initialize): nothing will ever reach this session, so it is not kept.
    if (!this.#sessions.has(id) && !session.closed) await session.close();
  }

  /** A request of a known session is open until its response closes; the session is not idle meanwhile. */
  #inUse(use: HttpSession, stream: boolean, res: ServerResponse): void {
    use.open++;
    if (stream) use.streams++;
    use.lastSeenMs = this.#now();
    res.once('close', () => {
      use.open--;
      if (stream) use.streams--;
      use.lastSeenMs = this.#now();
    });
  }
}

/**
 * A lean-path request's `requestInfo`: its headers, and its URL made when read. A class, not an object
 * literal: a literal with a getter is built by V8's slow path, a visible share of a small call.
 */
class LazyRequestInfo {
  readonly headers: IncomingMessage['headers'];
  readonly #urlOf: () => URL;

  constructor(headers: IncomingMessage['headers'], urlOf: () => URL) {
    this.headers = headers;
    this.#urlOf = urlOf;
  }

  get url(): URL {
    return this.#urlOf();
  }
}

/**
 * Tells `held` when this GET's event stream is open (the SDK wrote its head with 200: from then on it
 * carries what is sent) and when it closes. A GET the SDK refuses (406, 409) opens nothing.
 */
function whenStreamOpens(res: ServerResponse, held: HeldNotifications): void {
  const writeHead = res.writeHead;
  // The SDK's Node adapter writes the head once, then streams; this wraps only this one response.
  res.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
    const out = writeHead.apply(this, args);
    // The SDK answers a GET with 200 only when it opened the stream; its refusals are 4xx.
    if (args[0] === 200) {
      held.streamOpened();
      res.once('close', () => held.streamClosed());
    }
    return out;
  } as ServerResponse['writeHead'];
}

/** The requests of a batch posted together, while its response is open: they share its event stream. */
interface Batch {
  /** Its requests not yet answered nor cancelled. */
  owed: Set<RequestId>;
  /** One of its requests was cancelled: the SDK will not end its stream. */
  cancelled: boolean;
}

/**
 * The SDK's transport, ending the event stream of a request cancelled: the SDK answers a cancelled request
 * with nothing, and ends a response's stream only once every request posted on it has an answer. A lone
 * request's stream ends at its cancel; a batch's, once none of its requests is still owed an answer.
 */
class SessionTransport extends StreamableHTTPServerTransport {
  /** The open batches of more than one request, by the ids of their requests. */
  readonly #batches = new Map<RequestId, Batch>();

  /** Notes the requests of a batch as sharing its response, until that response closes. */
  noteBatch(body: unknown[], res: ServerResponse): void {
    const ids: RequestId[] = [];
    for (const m of body as { id?: unknown; method?: unknown }[]) {
      if (typeof m?.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number')) ids.push(m.id);
    }
    if (ids.length < 2) return;
    const batch: Batch = { owed: new Set(ids), cancelled: false };
    for (const id of ids) this.#batches.set(id, batch);
    res.once('close', () => {
      for (const id of ids) if (this.#batches.get(id) === batch) this.#batches.delete(id);
    });
  }

  /** A request's cancellation was passed on to the SDK, or it was a call of the fast path's: it gets no answer. */
  endCancelled(requestId: RequestId): void {
    const batch = this.#batches.get(requestId);
    if (batch) {
      batch.owed.delete(requestId);
      batch.cancelled = true;
      if (batch.owed.size > 0) return;
    }
    this.closeSSEStream(requestId);
  }

  override async send(message: JSONRPCMessage, options?: { relatedRequestId?: RequestId }): Promise<void> {
    await super.send(message, options);
    const id = 'result' in message || 'error' in message ? message.id : undefined;
    if (id === undefined) return;
    const batch = this.#batches.get(id);
    // The last answer a batch with a cancelled request was owed: the SDK still waits for the cancelled one's.
    if (batch?.owed.delete(id) && batch.cancelled && batch.owed.size === 0) this.closeSSEStream(id);
  }
}

/** `/mcp` or `/mcp/`, with or without a query: the paths whose URL's pathname is one of those two. */
function isMcpPath(target: string): boolean {
  if (!target.startsWith('/mcp')) return false;
  const rest = target.length === 4 ? '' : target[4] === '/' ? target.slice(5) : target.slice(4);
  return rest === '' || (rest[0] === '?' && !rest.includes('#'));
}
