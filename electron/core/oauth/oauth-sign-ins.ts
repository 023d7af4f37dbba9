/**
 * Sign-in for HTTP and SSE upstreams (issue 15), built on the SDK's client auth: one provider per server,
 * the table of sign-ins waiting for their browser redirect, the redirect's handling (state checked, the
 * code exchanged for tokens) and sign-out (tokens forgotten, and revoked where the server supports RFC
 * 7009). The hub wires it to the upstreams; nothing here knows them.
 */
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { SecretStore } from '../secrets/secret-store.js';
import { AUTH_SERVER_TIMEOUT_MS, fetchWithTimeout } from './auth-server-requests.js';
import { PendingSignIns } from './pending-sign-ins.js';
import { revokeTokens } from './token-revocation.js';
import { OAUTH_SECRETS, UpstreamOAuthProvider } from './upstream-oauth-provider.js';

export interface OAuthSignInsOptions {
  store: SecretStore;
  /** The hub's callback URL, `http://127.0.0.1:<port>/oauth/callback`. */
  redirectUrl(): string;
  /** The SDK asked for a sign-in (a first 401, or a refresh that was refused). */
  onNeedsSignIn(serverId: string, authorizationUrl: string): void;
  /** The server refused the token a refresh had just issued: it needs a sign-in (its card says why). */
  onSignInRefused?(serverId: string): void;
  /** A connection's refresh failed because the sign-in server is not reachable (no sign-in is asked for): its message. */
  onAuthServerUnreachable?(serverId: string, message: string): void;
  /** Where Spillway's Client ID Metadata Document is hosted, if anywhere (a setting). */
  clientMetadataUrl?: () => string | undefined;
  pending?: PendingSignIns;
  /** How long one request to an authorization server may take (default AUTH_SERVER_TIMEOUT_MS; tests shorten it). */
  timeoutMs?: number;
  /**
   * The address a server at `serverUrl` (as saved) is reached at, where they differ: a key the address
   * holds is kept in the secret store and put back here. Without it, the saved address is the one.
   */
  address?(serverId: string, serverUrl: string): Promise<string>;
}

/**
 * What the callback did: signed a server in (`already` when this redirect had signed it in before: the
 * tab was reloaded), or refused (with the page's words). `serverId` is known when the state was one
 * Spillway made; a forged or unknown one names no server.
 */
export type CallbackOutcome =
  { ok: true; serverId: string; already?: true } | { ok: false; status: number; title: string; message: string; serverId?: string };

const NEXT_STEP = "Go back to Spillway's Servers view and press Sign in again.";

/** A sign-in that needs a client ID from the user: the server does not let apps register themselves. */
export class NeedsClientId extends Error {
  override name = 'NeedsClientId';
  constructor(redirectUrl: string) {
    super(
      `This server does not let apps register themselves, so it needs a client ID. In the service's developer settings, create an OAuth app (a public client) with the redirect URL ${redirectUrl}, then enter its client ID in this server's settings (Edit → Client ID for sign-in) and press Sign in again.`,
    );
  }
}

export class OAuthSignIns {
  readonly pending: PendingSignIns;
  readonly #providers = new Map<string, { provider: UpstreamOAuthProvider; serverUrl: string; clientId: string | undefined }>();
  /** Each server's sign-in in progress: a second one waits for it (see signIn). */
  readonly #starting = new Map<string, Promise<unknown>>();
  /** Each server's last sign-in that failed in the browser or at the callback, in words for its card; cleared by the next. */
  readonly #failures = new Map<string, string>();
  /** The redirects being handled (their code exchanged), by state: the same one again waits for it (see finish). */
  readonly #handling = new Map<string, Promise<CallbackOutcome>>();
  /**
   * Each server's last sign-in the user started, while its redirect has not come back: its state and the
   * client its authorization URL named. Pressing Sign in again meanwhile registers anew (see #signIn).
   */
  readonly #unanswered = new Map<string, { state: string | null; clientId: string | null }>();
  readonly #fetch: FetchLike;

  constructor(private readonly options: OAuthSignInsOptions) {
    this.pending = options.pending ?? new PendingSignIns();
    this.#fetch = fetchWithTimeout(options.timeoutMs ?? AUTH_SERVER_TIMEOUT_MS);
  }

  /**
   * The provider for a server at `serverUrl` (the same one as long as the URL and the entered client ID
   * stay the same; the one it replaces is retired, so its connection, on its way out, stores nothing).
   */
  providerFor(serverId: string, serverUrl: string, clientId?: string): UpstreamOAuthProvider {
    const known = this.#providers.get(serverId);
    if (known && known.serverUrl === serverUrl && known.clientId === clientId) return known.provider;
    // Nothing to wait for here: the new provider reads the store itself. A store that cannot answer is the new provider's to report.
    if (known) void known.provider.retire().catch(() => undefined);
    const provider = new UpstreamOAuthProvider({
      serverId,
      serverUrl,
      store: this.options.store,
      pending: this.pending,
      redirectUrl: () => this.options.redirectUrl(),
      onAuthorizationUrl: (id, url) => this.options.onNeedsSignIn(id, url),
      onSignInNeeded: (id, message) => {
        this.#failures.set(id, message);
        this.options.onSignInRefused?.(id);
      },
      ...(this.options.onAuthServerUnreachable ? { onAuthServerUnreachable: this.options.onAuthServerUnreachable } : {}),
      ...(this.options.timeoutMs !== undefined ? { timeoutMs: this.options.timeoutMs } : {}),
      ...(clientId ? { clientId } : {}),
      ...(this.options.clientMetadataUrl ? { clientMetadataUrl: this.options.clientMetadataUrl } : {}),
    });
    this.#providers.set(serverId, { provider, serverUrl, clientId });
    return provider;
  }

  /** The provider already made for a server, if any. */
  provider(serverId: string): UpstreamOAuthProvider | undefined {
    return this.#providers.get(serverId)?.provider;
  }

  /**
   * A fresh authorization URL for a server (its stored tokens, refused anyway, are dropped first, except for
   * a step-up: they serve the server's other tools until the new ones come). Sign-ins
   * of one server run one after the other: a server has one PKCE verifier slot, so the newer sign-in
   * replaces the older, whose redirect is then refused as replaced (see UpstreamOAuthProvider.state).
   */
  signIn(serverId: string, serverUrl: string, clientId?: string): Promise<string> {
    const before = this.#starting.get(serverId) ?? Promise.resolve();
    const mine = before.catch(() => undefined).then(() => this.#signIn(serverId, serverUrl, clientId));
    const settled = mine.catch(() => undefined);
    this.#starting.set(serverId, settled);
    void settled.then(() => {
      if (this.#starting.get(serverId) === settled) this.#starting.delete(serverId);
    });
    return mine;
  }

  /** The last sign-in of a server that failed in the browser or at the callback, in words for its card. */
  lastFailure(serverId: string): string | undefined {
    return this.#failures.get(serverId);
  }

  async #signIn(serverId: string, serverUrl: string, clientId?: string): Promise<string> {
    this.#failures.delete(serverId);
    const provider = this.providerFor(serverId, serverUrl, clientId);
    const address = await this.#address(serverId, serverUrl);
    // Read afresh: the server may name another sign-in server since it was last read.
    await provider.invalidateCredentials('discovery');
    // The server's 401 challenge: where its resource metadata is (maybe only there), and the scopes wanted;
    // with the scopes asked for and granted so far, read before the tokens go.
    const scope = await provider.signInScope();
    const { resourceMetadataUrl } = provider.challenge;
    // Refreshing works with any registration; a new authorization needs one for today's callback address.
    // Tokens are issued to their client: a new registration cannot refresh them, so they go with the old one
    // (a step-up included). A registration is otherwise kept: forgotten on Sign out, or when the server
    // answers invalid_client for it (the SDK's auth drops it then), or when the user's last sign-in with it
    // never came back (the server may have forgotten the client: its /authorize then refuses it in the
    // browser, and never redirects back to say so). Not for a step-up: the tokens it keeps in use can be
    // refreshed only with their client (a closed step-up tab is far more common than a forgotten client; a
    // refresh refused with invalid_client then drops the client, and the next sign-in registers anew).
    const elsewhere = await provider.registeredElsewhere();
    const unanswered = !provider.requiredScope && (await this.#unansweredClient(serverId, provider));
    if (elsewhere || unanswered) await provider.invalidateCredentials('client');
    if (elsewhere || !provider.requiredScope) await provider.forgetTokens();
    let result;
    try {
      const fetchFn = provider.noSignInRequests(this.#fetch);
      const options = { serverUrl: address, fetchFn, ...(scope ? { scope } : {}), ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}) };
      result = await provider.signInByUser(() => auth(provider, options));
    } catch (err) {
      // The SDK's words for a server without dynamic client registration (RFC 7591), and no client ID given.
      if (err instanceof Error && /does not support dynamic client registration/.test(err.message))
        throw new NeedsClientId(this.options.redirectUrl());
      throw err;
    }
    if (result !== 'REDIRECT' || !provider.authorizationUrl) throw new Error('The server signed in without asking the user: press Restart instead.');
    const asked = new URL(provider.authorizationUrl).searchParams;
    this.#unanswered.set(serverId, { state: asked.get('state'), clientId: asked.get('client_id') });
    return provider.authorizationUrl;
  }

  /** Whether the stored registration is the one the user's last sign-in named, whose redirect never came back. */
  async #unansweredClient(serverId: string, provider: UpstreamOAuthProvider): Promise<boolean> {
    const last = this.#unanswered.get(serverId);
    if (!last || !(await provider.registeredDynamically())) return false;
    return (await provider.clientInformation())?.client_id === last.clientId;
  }

  #address(serverId: string, serverUrl: string): Promise<string> {
    return this.options.address ? this.options.address(serverId, serverUrl) : Promise.resolve(serverUrl);
  }

  /** An insufficient_scope from a server (step-up): its provider remembers the scope for the next sign-in. */
  stepUp(serverId: string, scope: string | undefined): void {
    this.provider(serverId)?.requireScope(scope);
  }

  /**
   * Handles the browser's redirect to /oauth/callback; a failure of a sign-in Spillway made is kept for the
   * server's card. The same redirect again while its code is exchanged (the tab reloaded) waits for that
   * exchange and shows its outcome.
   */
  async finish(query: URLSearchParams): Promise<CallbackOutcome> {
    const state = query.get('state');
    const running = state ? this.#handling.get(state) : undefined;
    if (running) {
      const outcome = await running;
      if (outcome.ok) return { ...outcome, already: true };
      // Its failure was told to the server's card and log by the first; the page says it again.
      const { serverId: _told, ...page } = outcome;
      return page;
    }
    const handling = this.#finish(query);
    if (state) this.#handling.set(state, handling);
    try {
      const outcome = await handling;
      if (outcome.ok) this.#failures.delete(outcome.serverId);
      return outcome;
    } finally {
      if (state && this.#handling.get(state) === handling) this.#handling.delete(state);
    }
  }

  async #finish(query: URLSearchParams): Promise<CallbackOutcome> {
    const state = query.get('state');
    if (!state) return { ok: false, status: 400, title: 'Sign-in failed', message: `This address is missing its state. ${NEXT_STEP}` };
    const known = this.pending.serverOf(state);
    // A redirect came back: the server knew the client that sign-in named.
    if (known && this.#unanswered.get(known)?.state === state) this.#unanswered.delete(known);
    const taken = this.pending.take(state);
    // A link already used is not told to its server's card or log (a second redirect of one that failed already was).
    // Nor is one given up by Sign out or Remove: that server's card has moved on (it may be a new one of that id).
    const owner = 'refused' in taken && (taken.refused === 'unknown' || taken.refused === 'forgotten') ? undefined : known;
    if ('finished' in taken) return { ok: true, serverId: taken.finished, already: true };
    if ('refused' in taken) {
      const message = {
        expired: `This sign-in took too long and expired. ${NEXT_STEP}`,
        cancelled: `This sign-in was cancelled in Spillway. ${NEXT_STEP}`,
        replaced: `A newer sign-in to this server was started after this one and replaced it. Use the newer browser tab to finish, or go back to Spillway's Servers view and press Sign in again.`,
        forgotten: `This sign-in was given up when its server was signed out or removed in Spillway. To use the server, go back to Spillway's Servers view and press Sign in.`,
        unknown: `This sign-in link was already used, or was not made by this Spillway. ${NEXT_STEP}`,
      }[taken.refused];
      // Cancelled and replaced ones were given up in Spillway: its card knows (or waits for the newer one).
      if (owner && taken.refused === 'expired') this.#failures.set(owner, 'The sign-in took too long and expired. Press Sign in to try again.');
      return { ok: false, status: 400, title: 'Sign-in failed', message, ...(owner ? { serverId: owner } : {}) };
    }
    const { serverId } = taken;
    const error = query.get('error');
    if (error) {
      // A step-up refused (the account may not have that scope): the next sign-in asks for what it had.
      const stepped = this.#providers.get(serverId)?.provider;
      if (stepped) stepped.requiredScope = undefined;
      const described = `${error}${query.get('error_description') ? `: ${query.get('error_description')}` : ''}`;
      const denied = error === 'access_denied';
      this.#failures.set(
        serverId,
        denied
          ? 'Access was denied in the browser. To use this server, press Sign in and allow access.'
          : `The server refused the sign-in (${described}). Press Sign in to try again.`,
      );
      const message = denied
        ? `Access was denied, so Spillway cannot use "${serverId}". To use it, go back to Spillway's Servers view, press Sign in and allow access.`
        : `The server refused the sign-in (${described}). ${NEXT_STEP}`;
      return { ok: false, status: 400, title: denied ? 'Access denied' : 'Sign-in failed', message, serverId };
    }
    const code = query.get('code');
    const entry = this.#providers.get(serverId);
    if (!code || !entry) {
      this.#failures.set(serverId, 'The server sent no authorization code. Press Sign in to try again.');
      return { ok: false, status: 400, title: 'Sign-in failed', message: `The server sent no authorization code. ${NEXT_STEP}`, serverId };
    }
    // The verifier this exchange uses: a sign-in started meanwhile replaces it with its own, which stays.
    let verifier: string | undefined;
    try {
      // What the transport's finishAuth does: exchange the code (with the saved PKCE verifier) for tokens. The
      // exchange counts as under way from here, before anything is awaited: the state is taken, so a
      // connection's auth meanwhile is kept from storing its own verifier only by that (upstream-oauth-provider.ts).
      const result = await entry.provider.exchangeCode(async () => {
        verifier = await entry.provider.codeVerifier().catch(() => undefined);
        const address = await this.#address(serverId, entry.serverUrl);
        return auth(entry.provider, { serverUrl: address, authorizationCode: code, fetchFn: this.#fetch });
      });
      if (result !== 'AUTHORIZED') throw new Error('the server did not issue tokens');
      // Signed out or removed while the code was exchanged: the tokens were dropped, not stored.
      if (entry.provider.retired) throw new Error('this server was signed out or removed meanwhile');
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      // Only for the server's card and log while it is still this one's: one removed (and maybe added again) meanwhile is not.
      const current = this.#providers.get(serverId)?.provider === entry.provider;
      if (current) this.#failures.set(serverId, `Spillway could not finish signing in (${reason}). Press Sign in to try again.`);
      return {
        ok: false,
        status: 502,
        title: 'Sign-in failed',
        message: `Spillway could not finish signing in to "${serverId}" (${reason}). ${NEXT_STEP}`,
        ...(current ? { serverId } : {}),
      };
    }
    // Unless a newer sign-in waits (its verifier stored meanwhile): its verifier and step-up scope stay.
    if ((await entry.provider.codeVerifier().catch(() => undefined)) === verifier) {
      await entry.provider.invalidateCredentials('verifier');
      entry.provider.requiredScope = undefined;
    }
    this.pending.finished(state);
    return { ok: true, serverId };
  }

  /**
   * Forgets a server's tokens, then revokes them where their authorization server offers revocation (RFC
   * 7009). Everything is forgotten before any request: a revocation endpoint that never answers must not
   * leave them stored, and a sign-in started meanwhile stores its own values, which must stay. The provider
   * is retired first: a refresh under way must not store new tokens after they were forgotten.
   */
  async signOut(serverId: string, serverUrl: string, clientId?: string): Promise<{ revoked: boolean }> {
    const known = this.#providers.get(serverId);
    // The provider in use keeps the client ID the user entered (needed to revoke); a new one is given it.
    const provider = known?.serverUrl === serverUrl ? known.provider : this.providerFor(serverId, serverUrl, clientId);
    this.#providers.delete(serverId);
    const tokens = await provider.retire();
    const registered = await provider.registeredDynamically();
    // Read before it goes: the revocation authenticates as the client the tokens were issued to.
    const client = tokens ? await provider.clientInformation().catch(() => undefined) : undefined;
    // The server may forget a registration (restarted, or expiring them): the next sign-in registers anew.
    await this.#forgetStored(serverId, registered ? ['tokens', 'verifier', 'client'] : ['tokens', 'verifier']);
    this.pending.signedOut(serverId);
    this.#failures.delete(serverId);
    this.#unanswered.delete(serverId);
    const revoked = tokens && client ? await revokeTokens(provider, tokens, this.#fetch, client).catch(() => false) : false;
    return { revoked };
  }

  /** Gives up a server's waiting sign-in: its redirect, if it still comes, is refused; the PKCE verifier goes. */
  async cancel(serverId: string): Promise<boolean> {
    const cancelled = this.pending.cancel(serverId);
    if (cancelled) await this.provider(serverId)?.invalidateCredentials('verifier');
    return cancelled;
  }

  /** A removed server: its provider is retired, and its OAuth values leave the secret store (read this run or not). */
  async forget(serverId: string): Promise<void> {
    const known = this.#providers.get(serverId);
    this.#providers.delete(serverId);
    await known?.provider.retire();
    this.pending.signedOut(serverId);
    this.#failures.delete(serverId);
    this.#unanswered.delete(serverId);
    await this.#forgetStored(serverId, ['tokens', 'client', 'verifier']);
  }

  /** Deletes stored OAuth values directly: a retired provider writes nothing. */
  async #forgetStored(serverId: string, slots: (keyof typeof OAUTH_SECRETS)[]): Promise<void> {
    for (const slot of slots) await this.options.store.delete(serverId, OAUTH_SECRETS[slot]);
  }
}
