/**
 * Builds the client transport for one upstream config: our linear-framing stdio transport, Streamable
 * HTTP, or legacy SSE. Headers are the configured ones only — a downstream client's credentials are never
 * forwarded upstream. HTTP and SSE servers get an OAuth provider (issue 15) unless an Authorization header
 * is configured: the SDK then signs in, refreshes and retries on a 401 by itself, its sign-in requests
 * through the provider's fetch (time-limited, see connection-auth-fetch.ts). The answers to the MCP
 * requests are read for the server's challenges first (step-up, the 401's resource metadata and scope:
 * see scope-challenge.ts).
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ServerConfig } from '../../../shared/config.js';
import type { ChildReaper } from './child-reaper.js';
import type { EnvLike } from './child-env.js';
import type { SpoolTarget } from '../wire/spool-target.js';
import { challengeFetch, challengeOf, type Challenge } from '../oauth/scope-challenge.js';
import { expandSecretUrl } from '../secrets/url-secrets.js';
import { runtimeLaunch } from '../registry/install/own-runtime.js';
import { StdioUpstreamTransport } from './stdio-transport.js';
import type { UpstreamTransportHandle } from './upstream.js';

export interface TransportFactoryOptions {
  baseEnv: EnvLike;
  platform: NodeJS.Platform;
  reaper?: ChildReaper;
  /** The PATH that replaces baseEnv's, read before each start (the hub's ServerPath; undefined keeps baseEnv's). */
  loginShellPath?: () => Promise<string | undefined>;
  maxMessageBytes: () => number;
  /** Where stdio upstreams stream multi-megabyte lines (see StdioUpstreamOptions.spool). */
  spool?: SpoolTarget;
  /** The config with its secret references replaced by the stored values (issue 15; the hub's secret store). */
  resolveSecrets?: (id: string, config: ServerConfig) => Promise<ServerConfig>;
  /** The OAuth provider of an HTTP or SSE server (the hub's sign-ins), found by its address as saved (a key in it stays a reference). */
  authProvider?: (id: string, configuredUrl: string) => UpstreamAuthProvider | undefined;
  /** A server answered insufficient_scope (step-up): the next sign-in asks for the scope, and the server's card says so. */
  onInsufficientScope?: (id: string, scope: string | undefined) => Promise<void>;
}

/** An OAuth provider that also gives the fetch the transport sends the SDK's sign-in requests through. */
export interface UpstreamAuthProvider extends OAuthClientProvider {
  /** `base` for MCP requests; the sign-in requests among them limited in time (UpstreamOAuthProvider.authRequests). */
  authRequests(base: FetchLike): FetchLike;
  /** The last 401 challenge the connection met (a sign-in the user starts follows it). */
  challenge: Challenge;
  /** Forgets the stored tokens. */
  forgetTokens(): Promise<void>;
  /** The scope a sign-in would ask for now (the one held among them). */
  signInScope(): Promise<string | undefined>;
  /** A scope the next sign-in asks for too. */
  requireScope(scope: string | undefined): void;
  /** The server refused the token a refresh had just issued: it needs a sign-in. */
  refusedAfterRefresh(message: string): void;
}

/** The status of an SSE server that refused its sign-in twice in a row, the second time freshly renewed. */
export const SIGN_IN_REFUSED =
  'The server refused its sign-in even after Spillway renewed it (HTTP 401). Sign out and sign in again on the server’s card; if it still fails, this account may not have access to the server.';

const hasAuthorizationHeader = (headers: Record<string, string>) => Object.keys(headers).some((k) => k.toLowerCase() === 'authorization');

/**
 * `base` that gives each request its own abort signal, following the caller's. The SDK's HTTP transports
 * hand one transport-wide signal to every POST, and fetch (undici) adds an abort listener to the signal of
 * each request that it removes only when the request is garbage-collected: over a long session they pile
 * up on that one signal (MaxListenersExceededWarning on the hub's stderr past 1,500 calls). Here the only
 * listener on the caller's signal is ours, removed once the answer's body is read to its end, fails or is
 * cancelled, so an abort still stops a streamed answer part way.
 */
export function ownSignalPerRequest(base: FetchLike): FetchLike {
  return async (input, init) => {
    const shared = init?.signal;
    if (!shared) return base(input, init);
    const own = new AbortController();
    const abort = () => own.abort(shared.reason);
    const unlink = () => shared.removeEventListener('abort', abort);
    if (shared.aborted) abort();
    else shared.addEventListener('abort', abort, { once: true });
    let res: Response;
    try {
      res = await base(input, { ...init, signal: own.signal });
    } catch (err) {
      unlink();
      throw err;
    }
    if (!res.body) {
      unlink();
      return res;
    }
    return withBodyEnd(res, res.body, unlink);
  };
}

/** `res` with a body that calls `end` once it is read to its end, fails or is cancelled. */
function withBodyEnd(res: Response, source: ReadableStream<Uint8Array>, end: () => void): Response {
  const reader = source.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          end();
          controller.close();
        } else controller.enqueue(value);
      } catch (err) {
        end();
        controller.error(err);
      }
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
  });
  const wrapped = new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  // The SDK names a redirect's target against the answer's address (unfollowedRedirect); a new Response has none.
  Object.defineProperty(wrapped, 'url', { value: res.url });
  return wrapped;
}

export function createTransportFactory(options: TransportFactoryOptions) {
  return async (id: string, configured: ServerConfig, onStderr: (line: string) => void): Promise<UpstreamTransportHandle> => {
    const config = options.resolveSecrets ? await options.resolveSecrets(id, configured) : configured;
    if (config.type === 'stdio') {
      // A server installed from the catalog names the app's runtime, not a path (own-runtime.ts).
      const { command, env } = runtimeLaunch(config.command, config.env);
      const transport = new StdioUpstreamTransport({
        command,
        args: config.args,
        env,
        cwd: config.cwd,
        baseEnv: options.baseEnv,
        platform: options.platform,
        reaper: options.reaper,
        maxMessageBytes: options.maxMessageBytes(),
        loginShellPath: await options.loginShellPath?.(),
        ...(options.spool ? { spool: options.spool } : {}),
      });
      transport.onStderr = onStderr;
      transport.onNoise = (line) => onStderr(`[stdout noise] ${line}`);
      return { transport, stderrTail: () => transport.stderrTail() };
    }
    // A secret part of the address kept as a header (a catalog entry's key in the path) goes back in its place.
    const remote = expandSecretUrl(config.url, config.headers);
    const url = new URL(remote.url);
    const requestInit: RequestInit = { headers: { ...remote.headers } };
    const perRequest = ownSignalPerRequest((input, init) => fetch(input, init));
    // The sign-in goes by the saved address; the expanded one (with its key) is only for the requests.
    const saved = configured.type === 'stdio' ? config.url : configured.url;
    const authProvider = hasAuthorizationHeader(remote.headers) ? undefined : options.authProvider?.(id, saved);
    // The MCP requests' answers are read for their challenges (scope-challenge.ts): the same for HTTP and SSE.
    const authFetch = authProvider
      ? authProvider.authRequests(
          challengeFetch(perRequest, {
            serverId: id,
            onChallenge: (challenge) => {
              authProvider.challenge = challenge;
            },
            onInsufficientScope: async (scope, connecting) => {
              await options.onInsufficientScope?.(id, scope);
              if (!connecting) return;
              // The tokens go (nothing works without the scope); the next sign-in still asks for what they held.
              authProvider.requireScope(await authProvider.signInScope());
              await authProvider.forgetTokens();
            },
            onRefusedAfterRefresh: (message) => authProvider.refusedAfterRefresh(message),
            currentToken: async () => (await authProvider.tokens())?.access_token,
          }),
        )
      : perRequest;
    // Loaded on first use: most setups are stdio-only, and startup time counts.
    if (config.type === 'sse') {
      const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
      // The SDK's SSE transport answers every 401 of the stream with a refresh and a new try, also when the
      // server refuses the renewed token too: forever, a refresh grant each time. The second 401 in a row
      // ends this connect (the retry plan tries again later, one refresh per try).
      let refusedInARow = 0;
      return {
        transport: new SSEClientTransport(url, {
          requestInit,
          // The SDK's POSTs and sign-in requests go through `fetch` (the stream through eventSourceInit's below).
          ...(authProvider ? { authProvider } : {}),
          fetch: authFetch,
          eventSourceInit: {
            // The SDK hands the stream's headers (bearer token, Accept, protocol version) over as a Headers
            // object, which spreads to {}: copied through Headers, with the configured ones set on top.
            fetch: async (input, init) => {
              const headers = new Headers(init?.headers);
              for (const [name, value] of Object.entries(remote.headers)) headers.set(name, value);
              const res = await fetch(input, { ...init, headers });
              if (res.status === 401 && authProvider) authProvider.challenge = challengeOf(res);
              refusedInARow = res.status === 401 && authProvider ? refusedInARow + 1 : 0;
              if (refusedInARow < 2) return res;
              await res.body?.cancel();
              throw new Error(SIGN_IN_REFUSED);
            },
          },
        }),
      };
    }
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    return {
      transport: new StreamableHTTPClientTransport(url, { requestInit, ...(authProvider ? { authProvider } : {}), fetch: authFetch }),
    };
  };
}
