/**
 * The browser UI's session cookie. Opening the URL with `?token=` trades the token for a cookie that
 * holds a keyed hash of it for this hub's port, never the token itself: a browser sends 127.0.0.1's
 * cookies to every port of it, any other local server included, and the token also opens the MCP
 * endpoint. The value stays the same while the token does, so a page outlives a restart of its hub
 * (it reconnects by itself), and a new token ends every session. The cookie's name carries the port
 * too, so two hubs on one machine do not log each other's pages out.
 */
import { createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { tokensEqual } from '../files/access-token.js';

/** The session cookie's name for the hub answering on `port`. */
export function sessionCookieName(port: number | undefined): string {
  return `spillway_session_${port ?? 0}`;
}

/** The session cookie's value for the hub answering on `port` with `token`. */
export function sessionValue(token: string, port: number | undefined): string {
  return createHmac('sha256', token)
    .update(`spillway ui session ${port ?? 0}`)
    .digest('base64url');
}

/** The value of the cookie named `name` in the request, or undefined. */
export function requestCookie(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

/** Whether the request carries this hub's session cookie for `token`. */
export function hasSession(req: IncomingMessage, token: string): boolean {
  const port = req.socket.localPort;
  const value = requestCookie(req, sessionCookieName(port));
  return Boolean(value && token && tokensEqual(value, sessionValue(token, port)));
}
