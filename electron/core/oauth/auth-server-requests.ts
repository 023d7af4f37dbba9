/**
 * The rules for talking to a sign-in (authorization) server: every request gives up after a time limit, so
 * a server that never answers cannot leave a sign-in "Opening…" or a sign-out waiting for minutes; and
 * its endpoints must be https (plain http only on this computer), since the browser carries the user's
 * sign-in there and Spillway posts codes, tokens and its client secret there (OAuth 2.1 §1.5).
 */
import type { AuthorizationServerMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/** How long one request to a sign-in server may take before Spillway gives up. */
export const AUTH_SERVER_TIMEOUT_MS = 15_000;

/** A time limit in words: "1 second", "15 seconds". */
export function inSeconds(ms: number): string {
  const seconds = Math.max(1, Math.round(ms / 1000));
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

/** A sign-in server that did not answer in time. */
export class AuthServerTimeout extends Error {
  override name = 'AuthServerTimeout';
  constructor(host: string, timeoutMs: number) {
    super(
      `The sign-in server (${host}) did not answer within ${inSeconds(timeoutMs)}. Check your internet connection and try again; if it keeps happening, the server may be down.`,
    );
  }
}

/**
 * A connection's refresh that failed only because the sign-in server did not answer, could not be reached
 * or answered with a server error: the sign-in still holds (its refresh token is kept), so the server is
 * not asked to sign in again; the upstream reports this and tries again later.
 */
export class AuthServerUnreachable extends Error {
  override name = 'AuthServerUnreachable';
  constructor(serverId: string, host: string, reason: string) {
    super(
      `The sign-in server of "${serverId}" (${host}) is not reachable (${reason}), so Spillway could not renew the sign-in. You stay signed in; Spillway reconnects once that server answers`,
    );
  }
}

/** A fetch whose requests give up after `timeoutMs` (a signal the caller passes still counts too). */
export function fetchWithTimeout(timeoutMs: number, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    try {
      return await base(url, { ...init, signal });
    } catch (err) {
      if (timeout.aborted) throw new AuthServerTimeout(new URL(url).host, timeoutMs);
      throw err;
    }
  };
}

/** Whether a URL's host is this computer (RFC 8252 §8.3: loopback needs no TLS). */
export function isLoopback(url: URL): boolean {
  const host = url.hostname;
  return host === 'localhost' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** A sign-in server address that is not https (and not on this computer). */
export class InsecureAuthServer extends Error {
  override name = 'InsecureAuthServer';
  constructor(address: string) {
    super(
      `This server's sign-in uses an address that is not secure (${address}), so Spillway will not sign in there: your sign-in could be read on the way. Ask the server's provider for an https sign-in address.`,
    );
  }
}

const ENDPOINTS = ['authorization_endpoint', 'token_endpoint', 'registration_endpoint', 'revocation_endpoint'] as const;

/**
 * Throws InsecureAuthServer unless the authorization server and every endpoint its metadata names
 * (authorization, token, registration, revocation) are https or on this computer.
 */
export function checkAuthServerEndpoints(authorizationServerUrl: string | URL, metadata?: AuthorizationServerMetadata): void {
  // Read by name: OpenID discovery documents may carry revocation_endpoint though their schema does not name it.
  const named = Object.entries(metadata ?? {}).filter(([name]) => ENDPOINTS.some((known) => known === name));
  const addresses: unknown[] = [String(authorizationServerUrl), ...named.map(([, value]) => value)];
  for (const address of addresses) {
    if (typeof address !== 'string') continue;
    let url: URL;
    try {
      url = new URL(address);
    } catch {
      throw new InsecureAuthServer(address);
    }
    const secure = url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url));
    if (!secure) throw new InsecureAuthServer(`${url.protocol}//${url.host}${url.pathname}`);
  }
}
