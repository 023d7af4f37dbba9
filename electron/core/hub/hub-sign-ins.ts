/**
 * The hub's side of upstream sign-in (issue 15): the OAuth sign-ins wired to the upstream pool. A sign-in
 * asked for by the SDK puts the upstream in 'needs-sign-in'; a refresh that failed only because the sign-in
 * server is not reachable is an error the upstream retries; the browser's redirect, once its code is
 * exchanged, starts the upstream again by itself (a failed one is told on the server's card); sign-out
 * forgets the tokens and asks for a sign-in.
 */
import type { ServerConfig } from '../../../shared/config.js';
import type { HubEventInput } from '../../../shared/events.js';
import { ownValue } from '../../../shared/records.js';
import { callbackPage } from '../oauth/callback-page.js';
import { OAuthSignIns } from '../oauth/oauth-sign-ins.js';
import type { UpstreamOAuthProvider } from '../oauth/upstream-oauth-provider.js';
import { resolveServerSecrets } from '../secrets/server-secret-refs.js';
import type { SecretStore } from '../secrets/secret-store.js';
import { expandSecretUrl } from '../secrets/url-secrets.js';
import type { Upstream } from '../upstream/upstream.js';

/** What list reports of a server's sign-in. */
export interface UpstreamAuthInfo {
  state: 'none' | 'signed-in' | 'needs-sign-in';
  authorizationUrl?: string;
  /** While a sign-in is needed: why the last one failed (in the browser or at the callback), in words for the card. */
  failure?: string;
  /** A tool (or, while a sign-in is needed, the connect) asked for more access (step-up), in words for the card (Sign in asks for it). */
  notice?: string;
}

export interface HubSignInsDeps {
  store: SecretStore;
  upstreams: () => ReadonlyMap<string, Upstream>;
  servers: () => Readonly<Record<string, ServerConfig>>;
  /** The hub's MCP endpoint URL (its port is the callback's). */
  endpointUrl: () => string;
  /** The setting: where Spillway's Client ID Metadata Document is hosted. */
  clientMetadataUrl?: () => string | undefined;
  emit(event: HubEventInput): void;
}

/** A sign-in that cannot start (the server is unknown or not reached over HTTP). */
export class SignInRefused extends Error {
  override name = 'SignInRefused';
}

export class HubSignIns {
  readonly oauth: OAuthSignIns;
  /** The providers whose stored tokens are being read (see #readStored). */
  readonly #reading = new Set<UpstreamOAuthProvider>();

  constructor(private readonly deps: HubSignInsDeps) {
    this.oauth = new OAuthSignIns({
      store: deps.store,
      redirectUrl: () => new URL('/oauth/callback', deps.endpointUrl()).href,
      onNeedsSignIn: (id) => deps.upstreams().get(id)?.requireSignIn(),
      onSignInRefused: (id) => deps.upstreams().get(id)?.requireSignIn(),
      // A connect fails with the error itself. A request of a connected server fails with it first, then
      // (on the next turn, so that its caller reads this error rather than "connection closed") the
      // server drops and reconnects with backoff.
      onAuthServerUnreachable: (id, message) => setImmediate(() => deps.upstreams().get(id)?.reportUnreachable(message)),
      ...(deps.clientMetadataUrl ? { clientMetadataUrl: deps.clientMetadataUrl } : {}),
      address: (id, url) => this.#address(id, url),
    });
    // Servers this run may never connect (turned off, started on first use) still show their sign-in.
    // Read now, not on first ask: the list and the tray read authInfo synchronously and nothing lists again
    // when a read ends, so a read the list started would show such a signed-in server without Sign out.
    for (const id of Object.keys(deps.servers())) this.#readStored(id);
  }

  /**
   * Reads whether tokens are stored for a configured HTTP or SSE server, by its address as configured now
   * (into its provider: see authInfo). A read that failed (a keychain locked) is tried again on the next
   * call; one read at a time per server.
   */
  #readStored(id: string): UpstreamOAuthProvider | undefined {
    const cfg = ownValue(this.deps.servers(), id);
    if (!cfg || cfg.type === 'stdio') return undefined;
    const provider = this.providerFor(id, cfg.url);
    if (!provider || provider.hasCachedTokens !== undefined || this.#reading.has(provider)) return provider;
    this.#reading.add(provider);
    // A store that cannot answer is the connection's to report.
    void provider
      .tokens()
      .catch(() => undefined)
      .finally(() => this.#reading.delete(provider));
    return provider;
  }

  /**
   * The provider of a configured HTTP or SSE server, by its address as saved (a key in it stays a
   * reference: see #address); none for a connection test's unsaved config (it never signs in or stores anything).
   */
  providerFor(id: string, url: string): UpstreamOAuthProvider | undefined {
    const cfg = ownValue(this.deps.servers(), id);
    return cfg && cfg.type !== 'stdio' && cfg.url === url ? this.oauth.providerFor(id, url, cfg.oauthClientId) : undefined;
  }

  #remote(id: string): { url: string; oauthClientId?: string } {
    const cfg = ownValue(this.deps.servers(), id);
    if (!cfg) throw new SignInRefused(`No server with id "${id}"`);
    if (cfg.type === 'stdio') throw new SignInRefused(`"${id}" runs on this computer: only servers reached over HTTP or SSE sign in.`);
    return cfg;
  }

  /**
   * Where a server saved at `url` is reached: its address with the keys the secret store holds for it put
   * back (`?api_key=…`, a catalog entry's key in the path), as its transport reaches it.
   */
  async #address(id: string, url: string): Promise<string> {
    const cfg = ownValue(this.deps.servers(), id);
    if (!cfg || cfg.type === 'stdio' || cfg.url !== url) return url;
    const resolved = await resolveServerSecrets(this.deps.store, id, cfg);
    return resolved.type === 'stdio' ? url : expandSecretUrl(resolved.url, resolved.headers).url;
  }

  /** A server asked for more scope (insufficient_scope) for one call: the next sign-in asks for it; the rest works on. */
  async stepUp(id: string, scope: string | undefined): Promise<void> {
    this.deps.emit({
      type: 'log',
      level: 'warn',
      server: id,
      message: `${id} asks for more access${scope ? ` (${scope})` : ''}: sign in again to allow it`,
    });
    this.oauth.stepUp(id, scope);
    // Met while connecting (tools/list, say): the server cannot be used without it, and trying again will
    // not help. The connect ends in 'needs-sign-in'; the tokens stay (the step-up sign-in keeps them).
    const up = this.deps.upstreams().get(id);
    if (up?.status === 'connecting') up.requireSignIn();
  }

  /** An authorization URL to open in a browser. */
  async signIn(id: string): Promise<{ authorizationUrl: string }> {
    const { url, oauthClientId } = this.#remote(id);
    const authorizationUrl = await this.oauth.signIn(id, url, oauthClientId);
    return { authorizationUrl };
  }

  /** Cancels a sign-in waiting for the browser (the server keeps needing one). */
  async cancelSignIn(id: string): Promise<{ cancelled: boolean }> {
    this.#remote(id);
    const cancelled = await this.oauth.cancel(id);
    if (cancelled) this.deps.emit({ type: 'log', level: 'info', server: id, message: `Sign-in to ${id} cancelled` });
    return { cancelled };
  }

  /** Forgets (and revokes) a server's tokens; it then needs a sign-in. */
  async signOut(id: string): Promise<{ revoked: boolean }> {
    const { url, oauthClientId } = this.#remote(id);
    const result = await this.oauth.signOut(id, url, oauthClientId);
    const up = this.deps.upstreams().get(id);
    // Stopping closes the connection the old token opened; the fresh connect meets the 401 and waits.
    if (up && up.config.enabled) await up.restart();
    this.deps.emit({ type: 'log', level: 'info', server: id, message: `Signed out of ${id}${result.revoked ? ' (tokens revoked)' : ''}` });
    return result;
  }

  /** A server's sign-in as list reports it (from what this run has read of the store; a server not read yet, or whose read failed, is read now). */
  authInfo(id: string): UpstreamAuthInfo {
    const up = this.deps.upstreams().get(id);
    // The provider for the address configured now (an edited one has its own tokens, or none).
    const provider = this.#readStored(id) ?? this.oauth.provider(id);
    if (up?.status === 'needs-sign-in') {
      const failure = this.oauth.lastFailure(id);
      const scope = provider?.requiredScope;
      const notice = scope ? `The server needs more access (scope ${scope}) to connect: press Sign in to allow it.` : undefined;
      return {
        state: 'needs-sign-in',
        ...(provider?.authorizationUrl ? { authorizationUrl: provider.authorizationUrl } : {}),
        ...(failure ? { failure } : {}),
        ...(notice ? { notice } : {}),
      };
    }
    if (provider?.hasCachedTokens) {
      const scope = provider.requiredScope;
      const notice = scope ? `A tool needs more access (scope ${scope}): press Sign in to allow it. The other tools work meanwhile.` : undefined;
      return { state: 'signed-in', ...(notice ? { notice } : {}) };
    }
    return { state: 'none' };
  }

  /**
   * The browser's redirect: the page to show; on success the upstream starts (no restart needed). A
   * failure is logged (the window reads the server's card again on it) only when its state was one
   * Spillway made: any web page can load this address, and must not write into the log.
   */
  async callback(query: URLSearchParams): Promise<{ status: number; html: string }> {
    const outcome = await this.oauth.finish(query);
    if (!outcome.ok) {
      if (outcome.serverId) this.deps.emit({ type: 'log', level: 'warn', server: outcome.serverId, message: `Sign-in failed: ${outcome.message}` });
      return { status: outcome.status, html: callbackPage(outcome.title, outcome.message) };
    }
    if (outcome.already) return { status: 200, html: callbackPage('Signed in', 'This sign-in is already finished; you can close this tab.') };
    const up = this.deps.upstreams().get(outcome.serverId);
    if (up && up.status !== 'ready') up.start();
    this.deps.emit({ type: 'log', level: 'info', server: outcome.serverId, message: `Signed in to ${outcome.serverId}` });
    return { status: 200, html: callbackPage('Signed in', `Spillway is signed in to "${outcome.serverId}". You can close this tab.`) };
  }
}
