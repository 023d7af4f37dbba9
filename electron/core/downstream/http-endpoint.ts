/**
 * The local HTTP endpoint: MCP Streamable HTTP at /mcp (stateful sessions), the control API at /api and
 * the UI at /. Bound to 127.0.0.1 only; every request's Host and Origin are checked (DNS rebinding) and
 * a bearer token is required.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { DownstreamSession } from './session.js';

export const LOOPBACK = '127.0.0.1';
const MAX_BODY_BYTES = 64 * 1024 * 1024;

export interface EndpointHooks {
  /** Checks a bearer token; returns who holds it (undefined = refused). */
  authenticate(token: string): { clientId?: string } | undefined;
  /** Creates (but does not connect) a session for a new MCP client. */
  createSession(id: string, clientId: string | undefined): DownstreamSession;
  /** Control API, UI and anything else that is not /mcp. Return false to answer 404. */
  handleOther?(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean>;
}

/** Constant-time token comparison. */
export function tokensEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  const m = header ? /^Bearer\s+(.+)$/i.exec(header.trim()) : null;
  return m?.[1]?.trim();
}

/** Hosts a local page may legitimately use to reach us. */
export function allowedHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
}

/** Origins allowed to call us from a browser: only our own UI. A request without Origin is not a browser's. */
export function originAllowed(origin: string | undefined, port: number): boolean {
  if (origin === undefined) return true;
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`].includes(origin);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function jsonRpcError(res: ServerResponse, status: number, message: string, code = -32000, headers: Record<string, string> = {}): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null }, headers);
}

export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw Object.assign(new Error(`request body over ${limit} bytes`), { status: 413 });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

interface HttpSession {
  transport: StreamableHTTPServerTransport;
  session: DownstreamSession;
  clientId?: string;
}

export class HttpEndpoint {
  #server: HttpServer | undefined;
  #sessions = new Map<string, HttpSession>();
  port = 0;
  /** Told whenever a request arrives with a client's own token (for "last seen"). */
  onClientSeen: ((clientId: string) => void) | undefined;

  constructor(private readonly hooks: EndpointHooks) {}

  get url(): string {
    return `http://${LOOPBACK}:${this.port}/mcp`;
  }

  get origin(): string {
    return `http://${LOOPBACK}:${this.port}`;
  }

  async listen(port: number): Promise<void> {
    const server = createServer((req, res) => {
      void this.#handle(req, res).catch((err: Error & { status?: number }) => {
        if (!res.headersSent) jsonRpcError(res, err.status ?? 500, err.message);
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
  }

  /** The listening socket's address (tests check it is loopback). */
  address(): AddressInfo {
    return this.#server!.address() as AddressInfo;
  }

  sessionCount(): number {
    return this.#sessions.size;
  }

  async close(): Promise<void> {
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
    if (!allowedHosts(this.port).has(host.toLowerCase())) {
      return jsonRpcError(res, 403, `Forbidden: Host "${host}" is not allowed`);
    }
    const origin = req.headers.origin;
    if (!originAllowed(origin, this.port)) {
      return jsonRpcError(res, 403, `Forbidden: Origin "${origin}" is not allowed`);
    }
    const url = new URL(req.url ?? '/', `http://${host}`);
    if (url.pathname === '/mcp' || url.pathname === '/mcp/') return this.#handleMcp(req, res, url);
    if (this.hooks.handleOther && (await this.hooks.handleOther(req, res, url))) return;
    sendJson(res, 404, { ok: false, code: 'not_found', message: `No such path: ${url.pathname}` });
  }

  async #handleMcp(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    // `?token=` is accepted for clients that cannot set headers (e.g. the conformance suite).
    const token = bearerToken(req) ?? url.searchParams.get('token') ?? undefined;
    const who = token ? this.hooks.authenticate(token) : undefined;
    if (!who) {
      return jsonRpcError(res, 401, 'Unauthorized: a valid bearer token is required (see `spillway token`)', -32001, {
        'www-authenticate': 'Bearer realm="spillway"',
      });
    }
    if (who.clientId) this.onClientSeen?.(who.clientId);
    const sessionId = req.headers['mcp-session-id'];
    const sid = Array.isArray(sessionId) ? sessionId[0] : sessionId;
    let body: unknown;
    if (req.method === 'POST') {
      const text = await readBody(req);
      try {
        body = JSON.parse(text);
      } catch {
        return jsonRpcError(res, 400, 'Parse error: the body is not JSON', -32700);
      }
    }
    if (sid) {
      const known = this.#sessions.get(sid);
      if (!known) return jsonRpcError(res, 404, 'Session not found (it may have expired): start a new session', -32001);
      if (known.clientId !== who.clientId) return jsonRpcError(res, 403, 'Forbidden: this session belongs to another token');
      await known.transport.handleRequest(req, res, body);
      return;
    }
    const initializing = req.method === 'POST' && (Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body));
    if (!initializing) {
      return jsonRpcError(res, 400, 'Bad Request: no session id; send initialize first', -32000);
    }
    const id = randomUUID();
    const session = this.hooks.createSession(id, who.clientId);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: () => {
        this.#sessions.set(id, { transport, session, clientId: who.clientId });
      },
      onsessionclosed: () => {
        this.#sessions.delete(id);
      },
    });
    // Set before connect: the SDK chains an onclose that exists when it connects.
    transport.onclose = () => {
      this.#sessions.delete(id);
    };
    await session.connect(transport);
    await transport.handleRequest(req, res, body);
  }
}
