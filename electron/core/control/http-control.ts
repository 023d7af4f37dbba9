/**
 * The control contract over HTTP + SSE for the browser/headless mode and the CLI: `POST /api/<method>`
 * with a JSON body answers an ApiResult; `GET /api/events` streams HubEvents as SSE. The UI is served at
 * `/`. Auth: the bearer token in the Authorization header; the events stream also takes it as `?token=`.
 * Never a cookie (see ui-sessions.ts). The endpoint has already checked Host and Origin.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { matchesFilter, type EventFilter, type HubEvent } from '../../../shared/events.js';
import { sendJson } from '../downstream/http-endpoint.js';
import { tokensEqual } from '../files/access-token.js';
import type { ControlDispatcher } from './control-handlers.js';
import { presentsToken } from './ui-sessions.js';

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

/** The most missed events a reconnecting events reader is sent before the stream goes live. */
export const MAX_CATCH_UP_EVENTS = 1000;

/**
 * The seq a reconnecting events reader saw last: EventSource's own Last-Event-ID (its newest, also on a
 * stream the page reopened) before the page's `?afterSeq=`; undefined for a first connection.
 */
function lastSeenSeq(req: IncomingMessage, url: URL): number | undefined {
  for (const text of [req.headers['last-event-id'], url.searchParams.get('afterSeq')]) {
    if (typeof text === 'string' && /^\d{1,15}$/.test(text.trim())) return Number(text.trim());
  }
  return undefined;
}

export function createHttpControl(options: HttpControlOptions) {
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
    const send = (event: HubEvent) => res.write(`id: ${event.seq}\ndata: ${JSON.stringify(event)}\n\n`);
    // Live events that arrive while the missed ones are looked up wait here, so the reader gets each once, in order.
    let waiting: HubEvent[] | undefined = [];
    let lastSent = Number.NEGATIVE_INFINITY;
    const unsubscribe = options.subscribe((event) => {
      if (!matchesFilter(event, filter)) return;
      if (waiting) return void waiting.push(event);
      if (event.seq <= lastSent) return;
      // A reader that stopped reading (a suspended window) would have the hub hold every event for it: past
      // the limit it is let go, and its EventSource reconnects with Last-Event-ID to fetch what it missed.
      if (res.writableLength > MAX_UNREAD_EVENT_BYTES) return void res.destroy();
      send(event);
    });
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
    keepAlive.unref();
    req.on('close', () => {
      clearInterval(keepAlive);
      unsubscribe();
    });
    const afterSeq = lastSeenSeq(req, url);
    if (afterSeq !== undefined) {
      // What the reader missed, from the event log (memory, or the files after a restart of the hub): the
      // newest MAX_CATCH_UP_EVENTS of them, answered by the events.query method as the UI's history is
      // (the dispatcher has checked them against the contract's schema).
      const missed = await options.dispatcher.dispatch('events.query', { ...filter, afterSeq, limit: MAX_CATCH_UP_EVENTS });
      if (missed.ok && !res.destroyed) {
        for (const event of missed.value as HubEvent[]) {
          send(event);
          lastSent = event.seq;
        }
      }
    }
    for (const event of waiting) {
      if (event.seq > lastSent && !res.destroyed) send(event);
    }
    waiting = undefined;
  }

  async function serveUi(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    if (!options.uiDir || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
    const queryToken = url.searchParams.get('token');
    // A right token in the URL is left to the page, which keeps it and clears it from the address bar.
    if (queryToken !== null && (!options.token() || !tokensEqual(queryToken, options.token()))) {
      sendJson(res, 401, { ok: false, code: 'unauthorized', message: 'Wrong token in the URL: run `spillway token` for the right one' });
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
    // The page and its files hold nothing secret: they are served to anyone the endpoint lets through, and
    // the page asks for the token (from its URL) before it can call anything.
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
      if (!presentsToken(req, url, options.token())) {
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
