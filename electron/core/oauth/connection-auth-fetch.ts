/**
 * The fetch an upstream's transport holds when its server signs in with OAuth (issue 15). The SDK's
 * transport sends its MCP requests and its own sign-in requests (discovery, registration, the refresh on
 * a 401) through the one fetch it is given. Sign-in requests get the sign-in server's time limit, as the
 * sign-ins started from Spillway do (a token endpoint that hangs must not hold a tool call for its whole
 * timeout), and stop when the provider is retired (signed out, removed); MCP requests pass untouched,
 * since a tool call may rightly take minutes. Each refresh's outcome is reported: the SDK swallows a
 * refresh that failed for a passing reason and asks for a new sign-in, which the provider must not do.
 */
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { AuthServerTimeout, fetchWithTimeout, inSeconds } from './auth-server-requests.js';

/** A refresh that failed for a passing reason: the sign-in server's host, and what happened, in words. */
export interface RefreshFailure {
  host: string;
  reason: string;
}

export interface ConnectionAuthFetchOptions {
  timeoutMs: number;
  /** Aborted once the provider is retired: its sign-in requests under way stop. */
  stop: AbortSignal;
  /** The registration endpoint discovery found (the SDK registers there), if any. */
  registrationEndpoint(): string | undefined;
  /** A refresh ended: undefined when it was answered (granted, or refused outright), else why it failed. */
  onRefresh(failure: RefreshFailure | undefined): void;
}

/** Whether a request the transport makes is one of the SDK's sign-in requests, not MCP traffic. */
export function isSignInRequest(url: URL, init: RequestInit | undefined, registrationEndpoint: string | undefined): boolean {
  // Discovery: the RFC 9728, RFC 8414 and OpenID documents all live under /.well-known/.
  if (url.pathname.includes('/.well-known/')) return true;
  // Token requests (a code, a refresh) are form posts; MCP requests are JSON.
  if (init?.body instanceof URLSearchParams) return true;
  return registrationEndpoint !== undefined && url.href === registrationEndpoint;
}

/** Statuses that say "not now" rather than "no": the server is down, overloaded or slow. */
const passing = (status: number) => status >= 500 || status === 408 || status === 429;

/** `base` with the sign-in requests limited in time, stopped on retirement, and refreshes reported. */
export function connectionAuthFetch(base: FetchLike, options: ConnectionAuthFetchOptions): FetchLike {
  const limited = fetchWithTimeout(options.timeoutMs, base);
  return async (input, init) => {
    const url = new URL(input);
    if (!isSignInRequest(url, init, options.registrationEndpoint())) return base(input, init);
    const signal = init?.signal ? AbortSignal.any([init.signal, options.stop]) : options.stop;
    const body = init?.body;
    if (!(body instanceof URLSearchParams && body.get('grant_type') === 'refresh_token')) return limited(input, { ...init, signal });
    try {
      const res = await limited(input, { ...init, signal });
      options.onRefresh(passing(res.status) ? { host: url.host, reason: `it answered HTTP ${res.status}` } : undefined);
      return res;
    } catch (err) {
      if (!options.stop.aborted) {
        const timedOut = err instanceof AuthServerTimeout;
        options.onRefresh({
          host: url.host,
          reason: timedOut ? `it did not answer within ${inSeconds(options.timeoutMs)}` : 'it could not be reached',
        });
      }
      throw err;
    }
  };
}
