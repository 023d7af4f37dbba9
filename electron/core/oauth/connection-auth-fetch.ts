/**
 * The fetch an upstream's transport holds when its server signs in with OAuth (issue 15). The SDK's
 * transport sends its MCP requests and its own sign-in requests (discovery, registration, the refresh on
 * a 401) through the one fetch it is given. Sign-in requests get the sign-in server's time limit, as the
 * sign-ins started from Spillway do (a token endpoint that hangs must not hold a tool call for its whole
 * timeout), and stop when the provider is retired (signed out, removed); MCP requests pass untouched,
 * since a tool call may rightly take minutes. Each refresh's outcome is reported: the SDK swallows a
 * refresh that failed for a passing reason and asks for a new sign-in, which the provider must not do.
 * Refreshes run one at a time: parallel calls that meet a 401 each refresh with the same refresh token,
 * which a server that rotates them grants once; the others get that same answer instead of a refusal.
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
  /** The server refused a refresh outright (HTTP 400/401): the refresh token it was sent. */
  onRefreshRefused?(refreshToken: string): void;
  /** A refresh is sent now: what this gives is told the access token the server grants it, if it does. */
  onRefreshSent?(): (accessToken: string) => void;
}

/** A token endpoint's answer, kept to hand to each refresh that waited for it. */
interface Answer {
  status: number;
  statusText: string;
  headers: Headers;
  body: ArrayBuffer;
}

const respond = (a: Answer) =>
  new Response(a.body.byteLength ? a.body.slice(0) : null, { status: a.status, statusText: a.statusText, headers: a.headers });

/** Whether a request the transport makes is one of the SDK's sign-in requests, not MCP traffic. */
export function isSignInRequest(url: URL, init: RequestInit | undefined, registrationEndpoint: string | undefined): boolean {
  // Discovery: the RFC 9728, RFC 8414 and OpenID documents all live under /.well-known/.
  if (url.pathname.includes('/.well-known/')) return true;
  // Token requests (a code, a refresh) are form posts; MCP requests are JSON.
  if (init?.body instanceof URLSearchParams) return true;
  return registrationEndpoint !== undefined && url.href === registrationEndpoint;
}

/** The access token a granted refresh's answer carries, if it is the JSON a token endpoint answers. */
function grantedAccessToken(body: ArrayBuffer): string | undefined {
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(body));
    const token = parsed && typeof parsed === 'object' ? (parsed as { access_token?: unknown }).access_token : undefined;
    return typeof token === 'string' ? token : undefined;
  } catch {
    return undefined;
  }
}

/** Statuses that say "not now" rather than "no": the server is down, overloaded or slow. */
const passing = (status: number) => status >= 500 || status === 408 || status === 429;

/** `base` with the sign-in requests limited in time, stopped on retirement, and refreshes reported. */
export function connectionAuthFetch(base: FetchLike, options: ConnectionAuthFetchOptions): FetchLike {
  const limited = fetchWithTimeout(options.timeoutMs, base);
  /** The last refresh under way (or waiting for the one before), and the refresh token it sends. */
  let current: { token: string; answer: Promise<Answer> } | undefined;

  const refresh = async (url: URL, input: string | URL, init: RequestInit, token: string): Promise<Answer> => {
    const granted = options.onRefreshSent?.();
    try {
      const res = await limited(input, init);
      options.onRefresh(passing(res.status) ? { host: url.host, reason: `it answered HTTP ${res.status}` } : undefined);
      if (res.status === 400 || res.status === 401) options.onRefreshRefused?.(token);
      const answer = { status: res.status, statusText: res.statusText, headers: res.headers, body: await res.arrayBuffer() };
      const accessToken = res.ok ? grantedAccessToken(answer.body) : undefined;
      if (accessToken) granted?.(accessToken);
      return answer;
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

  return async (input, init) => {
    const url = new URL(input);
    if (!isSignInRequest(url, init, options.registrationEndpoint())) return base(input, init);
    const signal = init?.signal ? AbortSignal.any([init.signal, options.stop]) : options.stop;
    const body = init?.body;
    if (!(body instanceof URLSearchParams && body.get('grant_type') === 'refresh_token')) return limited(input, { ...init, signal });
    const token = body.get('refresh_token') ?? '';
    // The same refresh token as the refresh under way: its answer is this one's too.
    if (current?.token === token) return respond(await current.answer);
    // Another refresh waits for the one under way (its token may be spent by then: refused, see invalidateCredentials).
    const before = current?.answer;
    const run = () => refresh(url, input, { ...init, signal }, token);
    const answer = before ? before.catch(() => undefined).then(run) : run();
    const mine = { token, answer };
    current = mine;
    try {
      return respond(await answer);
    } finally {
      if (current === mine) current = undefined;
    }
  };
}
