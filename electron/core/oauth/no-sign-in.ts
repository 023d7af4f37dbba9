/**
 * A remote server that answers 401 but offers no OAuth sign-in (an API-key server): it names no resource
 * or authorization server metadata, so the SDK falls back to registering at `/register` on the server's
 * own origin, which refuses. Told in plain words (NoSignInOffered) instead of the SDK's parse error, and
 * not asked again on every retry: once refused, its sign-in requests are not sent until discovery is read
 * again (the user presses Sign in).
 */
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isSignInRequest } from './connection-auth-fetch.js';

/** A server that refused Spillway and offers no sign-in it can use. */
export class NoSignInOffered extends Error {
  override name = 'NoSignInOffered';
  constructor() {
    super(
      'The server refused Spillway (HTTP 401) and offers no sign-in Spillway can use. It may need an API key: add it in this server’s settings under Edit → Headers (for example Authorization: Bearer <your key>).',
    );
  }
}

export interface NoSignInWatch {
  /** The fallback registration address, when discovery found no metadata at all; else undefined. */
  fallbackRegistration(): string | undefined;
  /** Where the SDK registers (to tell its registration request from MCP traffic). */
  registrationEndpoint(): string | undefined;
  /** Whether the server already refused the fallback registration (since discovery was last read). */
  refused(): boolean;
  onRefused(): void;
}

/** Where the SDK registers: the endpoint the metadata names, or `/register` when discovery found no metadata. */
export function registrationEndpoint(discovery: OAuthDiscoveryState | undefined): string | undefined {
  if (!discovery) return undefined;
  const metadata = discovery.authorizationServerMetadata;
  if (metadata) return metadata.registration_endpoint;
  return new URL('/register', discovery.authorizationServerUrl).href;
}

/** The fallback registration address (`/register`), when discovery found no metadata at all; else undefined. */
export function fallbackRegistration(discovery: OAuthDiscoveryState | undefined): string | undefined {
  const fallback = discovery && !discovery.resourceMetadata && !discovery.authorizationServerMetadata;
  return fallback ? registrationEndpoint(discovery) : undefined;
}

/** Statuses that say "not now" rather than "no": those stay the SDK's to report. */
const passing = (status: number) => status >= 500 || status === 408 || status === 429;

/** `base` that throws NoSignInOffered for a refused fallback registration, and for every sign-in request after it. */
export function watchNoSignIn(base: FetchLike, watch: NoSignInWatch): FetchLike {
  return async (input, init) => {
    const url = new URL(input);
    if (watch.refused() && isSignInRequest(url, init, watch.registrationEndpoint())) throw new NoSignInOffered();
    const res = await base(input, init);
    if (res.ok || passing(res.status) || url.href !== watch.fallbackRegistration()) return res;
    await res.body?.cancel();
    watch.onRefused();
    throw new NoSignInOffered();
  };
}
