/**
 * What an HTTP or SSE server's challenges say (issue 15; RFC 6750 §3, the MCP authorization spec), read
 * from the answers to the connection's requests before the SDK sees them:
 * - a 401's challenge names where the resource metadata is and the scope wanted: a sign-in the user
 *   starts asks there, for that scope (the SDK only uses them for the connection's own auth);
 * - a 401 or 403 with error="insufficient_scope" (step-up) fails that one request with words to sign in
 *   for more access, and the next sign-in asks for the scope named; the tokens in hand stay, since they
 *   serve the server's other tools (the SDK would refresh, which keeps the old scopes, or sign out);
 * - a 401 for the token a refresh has just issued is not mended by refreshing again: the server needs a
 *   sign-in, said in plain words, instead of a refresh per call;
 * - a 401 for a token another request's refresh has replaced meanwhile is sent again with the new token:
 *   the SDK would take it for a 401 after its refresh (its check is one per transport) and fail the call.
 */
import { extractWWWAuthenticateParams, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/** The last 401 challenge a connection met. */
export interface Challenge {
  resourceMetadataUrl?: URL;
  scope?: string;
}

/** A 401's challenge: where the resource metadata is, and the scope wanted. */
export function challengeOf(res: Response): Challenge {
  const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(res);
  return { ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
}

/** The scopes named in any of `lists` (space-separated), each once, in the order first met; undefined for none. */
export function unionScopes(...lists: (string | undefined)[]): string | undefined {
  const all = new Set(lists.flatMap((list) => (list ?? '').split(' ').filter(Boolean)));
  return all.size ? [...all].join(' ') : undefined;
}

/** A request refused for want of scope (step-up): the call fails with what to do. */
export class MoreAccessNeeded extends Error {
  override name = 'MoreAccessNeeded';
  constructor(serverId: string, scope: string | undefined) {
    super(
      `"${serverId}" needs more access for this than it was given: sign in again to allow more access${scope ? ` (scope ${scope})` : ''}, with Sign in next to "${serverId}" in Spillway's Servers view. Its other tools keep working meanwhile.`,
    );
  }
}

/** The words for a server that refused the token a refresh had just issued. */
export const refusedAfterRefresh = (serverId: string) =>
  `"${serverId}" refused its sign-in even after Spillway renewed it (HTTP 401). Press Sign in next to "${serverId}" in Spillway's Servers view; if it still fails, this account may not have access to the server.`;

export interface ChallengeHooks {
  serverId: string;
  /** A 401's challenge: where the resource metadata is, and the scope wanted (none for a step-up). */
  onChallenge(challenge: Challenge): void;
  /** An insufficient_scope challenge; `connecting` when it answered the initialize request (nothing works without the scope). */
  onInsufficientScope(scope: string | undefined, connecting: boolean): Promise<void>;
  /** A 401 for the token a refresh had just issued (the request then fails with UnauthorizedError). */
  onRefusedAfterRefresh(message: string): void;
  /** The access token stored now. */
  currentToken(): Promise<string | undefined>;
}

/** The bearer token a request carries, if any. */
function bearerOf(init: RequestInit | undefined): string | undefined {
  const header = new Headers(init?.headers).get('authorization');
  return header && /^bearer /i.test(header) ? header.slice(7) : undefined;
}

/** Whether a request's body is the JSON-RPC initialize request, or a batch holding one (a connect, not a call). */
function isInitialize(init: RequestInit | undefined): boolean {
  if (typeof init?.body !== 'string') return false;
  let message: unknown;
  try {
    message = JSON.parse(init.body);
  } catch {
    return false;
  }
  const initialize = (m: unknown) => !!m && typeof m === 'object' && Reflect.get(m, 'method') === 'initialize';
  return Array.isArray(message) ? message.some(initialize) : initialize(message);
}

/** `base` that reads the challenges of its answers (see above). Requests and other answers pass as they are. */
export function challengeFetch(base: FetchLike, hooks: ChallengeHooks): FetchLike {
  /** The access token the last refresh issued, until the server accepts it. */
  let fresh: string | undefined;
  const send = async (input: string | URL, init: RequestInit | undefined, again: boolean): Promise<Response> => {
    const res = await base(input, init);
    const body = init?.body;
    if (body instanceof URLSearchParams) {
      // A token request (the SDK's refresh among them): its answer is read by the SDK too.
      if (body.get('grant_type') === 'refresh_token' && res.ok) {
        fresh = await res
          .clone()
          .json()
          .then((tokens: unknown) => {
            const token: unknown = tokens && typeof tokens === 'object' ? Reflect.get(tokens, 'access_token') : undefined;
            return typeof token === 'string' ? token : undefined;
          })
          .catch(() => undefined);
      }
      return res;
    }
    const sent = bearerOf(init);
    if (res.ok && sent !== undefined && sent === fresh) fresh = undefined;
    if (res.status !== 401 && res.status !== 403) return res;
    const { scope, error } = extractWWWAuthenticateParams(res);
    if (error === 'insufficient_scope') {
      const connecting = isInitialize(init);
      await hooks.onInsufficientScope(scope, connecting);
      // A connect the scope is missing for: the SDK's auth, with the tokens gone, asks for a sign-in.
      if (connecting) return res;
      await res.body?.cancel();
      throw new MoreAccessNeeded(hooks.serverId, scope);
    }
    if (res.status !== 401) return res;
    hooks.onChallenge(challengeOf(res));
    if (sent === undefined) return res;
    const current = await hooks.currentToken();
    if (!again && current !== undefined && current !== sent) {
      await res.body?.cancel();
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${current}`);
      return send(input, { ...init, headers }, true);
    }
    if (sent !== fresh) return res;
    fresh = undefined;
    await res.body?.cancel();
    const message = refusedAfterRefresh(hooks.serverId);
    hooks.onRefusedAfterRefresh(message);
    throw new UnauthorizedError(message);
  };
  return (input, init) => send(input, init, false);
}
