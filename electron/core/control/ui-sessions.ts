/**
 * How the browser UI proves itself to the control API. The page is opened once with the token in its
 * address (`/?token=` as Spillway prints the link, or `/#token=`); it keeps the token in sessionStorage,
 * which is per origin and so per port, and sends it as `Authorization: Bearer` with every call
 * (renderer/src/lib/api.ts). There is no session cookie: a browser sends 127.0.0.1's cookies to every
 * port of it, so any other local server the browser visits would receive the cookie and could replay it.
 * EventSource cannot set headers, so the events stream alone also takes the token as `?token=`: a query,
 * unlike a cookie, goes only to the origin its URL names.
 */
import type { IncomingMessage } from 'node:http';
import { bearerToken } from '../downstream/http-endpoint.js';
import { tokensEqual } from '../files/access-token.js';

/** The path of the events stream, the one control URL that also takes the token in its query. */
const EVENTS_PATH = '/api/events';

/** The token a control request presents: its bearer header or, for the events stream only, `?token=`. */
export function presentedToken(req: IncomingMessage, url: URL): string | undefined {
  const header = bearerToken(req);
  if (header !== undefined) return header;
  if (req.method === 'GET' && url.pathname === EVENTS_PATH) return url.searchParams.get('token') ?? undefined;
  return undefined;
}

/** Whether a control request presents this hub's token. Cookies are never looked at. */
export function presentsToken(req: IncomingMessage, url: URL, token: string): boolean {
  const presented = presentedToken(req, url);
  return Boolean(presented && token && tokensEqual(presented, token));
}
