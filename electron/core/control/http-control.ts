/**
 * The control contract over HTTP + SSE for the browser/headless mode and the CLI: `POST /api/<method>`
 * with a JSON body answers an ApiResult; `GET /api/events` streams HubEvents as SSE. The UI is served at
 * `/`. Auth: the bearer token, or the session cookie set when the user opens the URL with `?token=` (as
 * Jupyter does; see ui-sessions.ts). The endpoint has already checked Host and Origin.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { matchesFilter, type EventFilter, type HubEvent } from '../../../shared/events.js';
import { bearerToken, sendJson } from '../downstream/http-endpoint.js';
import { tokensEqual } from '../files/access-token.js';
import type { ControlDispatcher } from './control-handlers.js';
import { hasSession, sessionCookieName, sessionValue } from './ui-sessions.js';

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/** Headers every UI response carries: a strict CSP and no framing. */
export const UI_SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'; object-src 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** A URI component decoded; undefined for a malformed `%` escape (the caller answers 400 or 401, never 500). */
function decodeOrUndefined(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** The largest control request body (a config with long values fits many times over). */
export const MAX_CONTROL_BODY_BYTES = 8 * 1024 * 1024;
/** How much of a body over the limit is read and dropped so the client gets the answer; past it the connection is cut. */
const MAX_DRAINED_BYTES = 8 * MAX_CONTROL_BODY_BYTES;

/**
 * A control request's body as text; undefined when it is over the limit. The rest of such a body is
 * read and dropped, not cut off: a client still sending would see the connection reset instead of the 413.
 */
function readControlBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_CONTROL_BODY_BYTES) return void chunks.push(chunk);
      chunks.length = 0;
      if (size <= MAX_DRAINED_BYTES) return;
      reject(Object.assign(new Error(`request body over ${MAX_DRAINED_BYTES} bytes`), { status: 413 }));
      req.destroy();
    });
    req.once('end', () => resolve(size > MAX_CONTROL_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}

export interface HttpControlOptions {
  dispatcher: ControlDispatcher;
  token: () => string;
  subscribe: (fn: (e: HubEvent) => void) => () => void;
  /** Folder of the built renderer (index.html); undefined = no UI. */
  uiDir?: string;
}

export function createHttpControl(options: HttpControlOptions) {
  const authorized = (req: IncomingMessage): boolean => {
    const token = bearerToken(req);
    if (token !== undefined) return Boolean(token && options.token() && tokensEqual(token, options.token()));
    return hasSession(req, options.token());
  };

  /** Event text a live-events reader may leave unread before it is let go. */
  const MAX_UNREAD_EVENT_BYTES = 4 * 1024 * 1024;

  async function serveEvents(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const filter: EventFilter = {};
    const types = url.searchParams.get('types');
    if (types) filter.types = types.split(',');
    for (const key of ['server', 'tool', 'client', 'text'] as const) {
      const v = url.searchParams.get(key);
      if (v) filter[key] = v;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
    });
    res.write(': connected\n\n');
    const unsubscribe = options.subscribe((event) => {
      if (!matchesFilter(event, filter)) return;
      // A reader that stopped reading (a suspended window) would have the hub hold every event for it: past
      // the limit it is let go, and its EventSource reconnects with Last-Event-ID to fetch what it missed.
      if (res.writableLength > MAX_UNREAD_EVENT_BYTES) return void res.destroy();
      res.write(`id: ${event.seq}\ndata: ${JSON.stringify(event)}\n\n`);
    });
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
    keepAlive.unref();
    req.on('close', () => {
      clearInterval(keepAlive);
      unsubscribe();
    });
  }

  async function serveUi(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    if (!options.uiDir || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
    const queryToken = url.searchParams.get('token');
    if (queryToken !== null) {
      if (!options.token() || !tokensEqual(queryToken, options.token())) {
        sendJson(res, 401, { ok: false, code: 'unauthorized', message: 'Wrong token in the URL: run `spillway token` for the right one' });
        return true;
      }
      // Trade the token in the URL for an HttpOnly session cookie, then drop it from the address bar.
      res.writeHead(302, {
        'set-cookie': `${sessionCookieName(req.socket.localPort)}=${sessionValue(queryToken, req.socket.localPort)}; HttpOnly; SameSite=Strict; Path=/`,
        location: url.pathname,
      });
      res.end();
      return true;
    }
    const rel = url.pathname === '/' ? 'index.html' : decodeOrUndefined(url.pathname.slice(1));
    if (rel === undefined) {
      res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8', ...UI_SECURITY_HEADERS });
      res.end('Spillway: the path has a malformed % escape.\n');
      return true;
    }
    const file = normalize(join(options.uiDir, rel));
    if (!file.startsWith(normalize(options.uiDir) + sep)) return false;
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) return false;
    if (rel === 'index.html' && !authorized(req)) {
      res.writeHead(401, { 'content-type': 'text/plain; charset=utf-8', ...UI_SECURITY_HEADERS });
      res.end('Spillway: open the link printed by `spillway serve` (it carries the token), or run `spillway token`.\n');
      return true;
    }
    res.writeHead(200, {
      'content-type': MIME[extname(file)] ?? 'application/octet-stream',
      'content-length': info.size,
      'cache-control': rel === 'index.html' ? 'no-store' : 'max-age=3600',
      ...UI_SECURITY_HEADERS,
    });
    if (req.method === 'HEAD') {
      res.end();
      return true;
    }
    createReadStream(file).pipe(res);
    return true;
  }

  return async function handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    if (url.pathname.startsWith('/api/')) {
      if (!authorized(req)) {
        sendJson(res, 401, { ok: false, code: 'unauthorized', message: 'A valid token is required' });
        return true;
      }
      const method = url.pathname.slice('/api/'.length);
      if (method === 'events' && req.method === 'GET') {
        await serveEvents(req, res, url);
        return true;
      }
      if (req.method !== 'POST') {
        sendJson(res, 405, { ok: false, code: 'invalid', message: 'Use POST with a JSON body' }, { allow: 'POST' });
        return true;
      }
      let body: unknown = {};
      const text = await readControlBody(req);
      if (text === undefined) {
        const message = `This request is too large: Spillway takes at most ${MAX_CONTROL_BODY_BYTES / 1024 / 1024} MB at a time. Send less at once (for example, shorter values) and try again.`;
        sendJson(res, 413, { ok: false, code: 'invalid', message });
        return true;
      }
      if (text.trim()) {
        try {
          body = JSON.parse(text);
        } catch {
          sendJson(res, 400, { ok: false, code: 'invalid', message: 'The body is not JSON' });
          return true;
        }
      }
      const result = await options.dispatcher.dispatch(method, body);
      sendJson(res, result.ok ? 200 : result.code === 'not_found' && !options.dispatcher.has(method) ? 404 : 200, result);
      return true;
    }
    return serveUi(req, res, url);
  };
}
