/**
 * The SDK's OAuthClientProvider for one HTTP or SSE upstream (issue 15). The SDK drives it: it reads
 * tokens for every request, refreshes them on a 401, registers the client, and when the user must sign in
 * it asks for a `state`, saves the PKCE verifier and hands over the authorization URL. Tokens, the client
 * registration and the verifier live in the secret store only (never config.json, logs or events); a copy
 * is kept in memory because tokens() runs for every request. Signed out or removed, a provider is retired:
 * nothing it is handed afterwards is stored.
 */
import { UnauthorizedError, type OAuthClientProvider, type OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { SecretStore } from '../secrets/secret-store.js';
import { AuthRuns } from './auth-runs.js';
import { AUTH_SERVER_TIMEOUT_MS, AuthServerUnreachable, checkAuthServerEndpoints } from './auth-server-requests.js';
import { connectionAuthFetch, type RefreshFailure } from './connection-auth-fetch.js';
import { RefreshLedger } from './refresh-ledger.js';
import { unionScopes, type Challenge } from './scope-challenge.js';
import { fallbackRegistration, registrationEndpoint, watchNoSignIn } from './no-sign-in.js';
import type { PendingSignIns } from './pending-sign-ins.js';
import { OAUTH_SECRETS, parseJson, type StoredTokens } from './stored-oauth-values.js';

/** The stored values' names and secrets, where the rest of the app has always found them. */
export { OAUTH_SECRETS, oauthSecretsWithin } from './stored-oauth-values.js';

export interface UpstreamOAuthOptions {
  serverId: string;
  /** The server's URL: tokens saved for another URL (the server's address was edited) are never sent. */
  serverUrl: string;
  store: SecretStore;
  pending: PendingSignIns;
  /** Where the browser comes back: `http://127.0.0.1:<hub port>/oauth/callback` (known once the hub listens). */
  redirectUrl(): string;
  /** The SDK needs the user to sign in: here is the authorization URL to open. */
  onAuthorizationUrl(serverId: string, url: string): void;
  /** A client ID the user entered (the server does not let apps register themselves): used instead of registering. */
  clientId?: string;
  /** Where Spillway's Client ID Metadata Document is hosted (a setting): the SDK uses it where the server accepts one. */
  clientMetadataUrl?: () => string | undefined;
  /** How long one sign-in request the connection makes may take (default AUTH_SERVER_TIMEOUT_MS). */
  timeoutMs?: number;
  /** The connection's refresh failed because the sign-in server is not reachable: the message it fails with. */
  onAuthServerUnreachable?(serverId: string, message: string): void;
  /** The server refused the token a refresh had just issued: it needs a sign-in (with these words, for its card). */
  onSignInNeeded?(serverId: string, message: string): void;
}

const SIGNED_OUT = 'This server was signed out or removed meanwhile: press Sign in to sign in again.';
const USER_SIGN_IN_WAITS = 'A sign-in to this server waits in the browser: finish it there, or press Sign in again.';

type Slot = keyof typeof OAUTH_SECRETS;

export class UpstreamOAuthProvider implements OAuthClientProvider {
  /** The last authorization URL handed over (cleared once signed in). */
  authorizationUrl: string | undefined;
  /** The scope a 401 or 403 insufficient_scope asked for (step-up): the next sign-in asks for it too. */
  requiredScope: string | undefined;
  /** The last 401 challenge the connection met: where its resource metadata is, and the scope it named. */
  challenge: Challenge = {};
  #discovery: OAuthDiscoveryState | undefined;
  readonly #cache = new Map<Slot, string | undefined>();
  /** Aborted on retire(): signed out or removed. */
  readonly #stop = new AbortController();
  /** Store writes under way (retire() waits for them). */
  readonly #writes = new Set<Promise<void>>();
  /** The server refused the registration at its fallback address: it offers no sign-in (see no-sign-in.ts). */
  #noSignIn = false;
  /** The connection's last refresh failed for a passing reason (see connection-auth-fetch.ts). */
  #refreshFailure: RefreshFailure | undefined;
  /** The connection's refreshes: the tokens refused, and the exchanges stored since each was sent (refresh-ledger.ts). */
  readonly #refreshes = new RefreshLedger();
  /** The scope the last authorization URL asked for: stored with the tokens it brings. */
  #askedScope: string | undefined;
  /** Which of the SDK's auth runs calls (the user's sign-in, a code exchange, the connection's own): auth-runs.ts. */
  readonly #runs = new AuthRuns();

  constructor(private readonly options: UpstreamOAuthOptions) {}

  get serverId(): string {
    return this.options.serverId;
  }

  get redirectUrl(): string {
    return this.options.redirectUrl();
  }

  get clientMetadataUrl(): string | undefined {
    return this.options.clientId ? undefined : this.options.clientMetadataUrl?.();
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Spillway',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    };
  }

  /**
   * A new authorization's state; the server's older waiting ones are refused from now on (the verifier
   * saved next replaces theirs). The SDK asks for one when the user presses Sign in (signInByUser), and
   * also when a connection's 401 cannot be mended by a refresh. Then, instead:
   * - if the refresh failed only because the sign-in server is not reachable and the refresh token is
   *   still stored, the sign-in still holds: this fails with AuthServerUnreachable, and the upstream
   *   tries again later;
   * - if the user's sign-in waits in the browser, that one is left alone (its state, its verifier): the
   *   server is only marked as needing a sign-in.
   */
  async state(): Promise<string> {
    const { serverId, pending } = this.options;
    if (this.retired) throw new UnauthorizedError(SIGNED_OUT);
    const byUser = this.#runs.inUserSignIn;
    if (!byUser) {
      const failure = this.#refreshFailure;
      this.#refreshFailure = undefined;
      if (failure && (await this.tokens())?.refresh_token) {
        // The sign-in server may have moved (the resource metadata names another now): the next try reads it again.
        this.#discovery = undefined;
        const unreachable = new AuthServerUnreachable(serverId, failure.host, failure.reason);
        this.options.onAuthServerUnreachable?.(serverId, unreachable.message);
        throw unreachable;
      }
      if (pending.waitingForUser(serverId)) {
        if (this.authorizationUrl) this.options.onAuthorizationUrl(serverId, this.authorizationUrl);
        throw new UnauthorizedError(USER_SIGN_IN_WAITS);
      }
      if (this.#runs.userSignInUnderWay) throw new UnauthorizedError(USER_SIGN_IN_WAITS);
    }
    pending.replace(serverId);
    return pending.create(serverId, byUser);
  }

  /** Runs the SDK's auth for a sign-in the user started: the state it makes is the user's (see state()). */
  signInByUser<T>(run: () => Promise<T>): Promise<T> {
    return this.#runs.byUser(run);
  }

  /**
   * Whether this is a connection's own auth while the user's sign-in runs, waits in the browser, or has its
   * code exchanged. The connection then registers no client and stores no verifier: its registration, landing
   * after the user's, would replace the client the user's authorization URL names, and the code would be
   * refused at the exchange.
   */
  #besideUserSignIn(): boolean {
    if (this.#runs.inUserSignIn || this.#runs.inExchange) return false;
    return this.#runs.userSignInUnderWay || this.options.pending.waitingForUser(this.options.serverId);
  }

  /**
   * Runs the SDK's exchange of a sign-in's code: the tokens it stores keep the scope the sign-in asked for,
   * and a refusal drops only the sign-in's verifier, never the tokens in use (see invalidateCredentials).
   */
  exchangeCode<T>(run: () => Promise<T>): Promise<T> {
    return this.#runs.exchange(() => this.#read('verifier'), run);
  }

  /**
   * The fetch for the connection's transport: the SDK's sign-in requests get the time limit, stop on
   * retirement, and report how a refresh went (connection-auth-fetch.ts); MCP requests pass as they are.
   */
  authRequests(base: FetchLike): FetchLike {
    return connectionAuthFetch(this.noSignInRequests(base), {
      timeoutMs: this.options.timeoutMs ?? AUTH_SERVER_TIMEOUT_MS,
      stop: this.#stop.signal,
      registrationEndpoint: () => registrationEndpoint(this.#discovery),
      onRefresh: (failure) => {
        this.#refreshFailure = failure;
      },
      onRefreshRefused: (token) => this.#refreshes.refused(token),
      onRefreshSent: () => this.#refreshes.sent(),
    });
  }

  /**
   * `base` that tells a server offering no sign-in (its registration at the fallback address refused) by
   * NoSignInOffered, and from then on sends none of its sign-in requests, until discovery is read again.
   */
  noSignInRequests(base: FetchLike): FetchLike {
    return watchNoSignIn(base, {
      fallbackRegistration: () => fallbackRegistration(this.#discovery),
      registrationEndpoint: () => registrationEndpoint(this.#discovery),
      refused: () => this.#noSignIn,
      onRefused: () => {
        this.#noSignIn = true;
      },
    });
  }

  /** Whether this provider was retired (signed out, removed, or replaced after the server's address changed). */
  get retired(): boolean {
    return this.#stop.signal.aborted;
  }

  /**
   * Signed out or removed: this provider stops. Its sign-in requests under way are aborted, and what the
   * SDK hands it later (the tokens of a refresh already answered, a registration, a verifier) is dropped,
   * so nothing is stored again once the caller has forgotten the stored values. Resolves, once its writes
   * under way have landed, with the tokens it last held (to revoke them).
   */
  async retire(): Promise<OAuthTokens | undefined> {
    this.#stop.abort();
    await Promise.allSettled([...this.#writes]);
    return this.#tokensFrom(await this.#read('tokens'));
  }

  /** The client the SDK signs in with; none beside the user's sign-in makes a connection's auth stop instead of registering one. */
  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    this.#runs.stopIfExchangeRefused();
    const info = await this.#client();
    if (!info && this.#besideUserSignIn()) throw new UnauthorizedError(USER_SIGN_IN_WAITS);
    this.#runs.exchangeReadClient(info?.client_id);
    return info;
  }

  #client(): Promise<OAuthClientInformationMixed | undefined> {
    // A public client (PKCE, no secret) the user made in the service's developer settings.
    if (this.options.clientId) return Promise.resolve({ client_id: this.options.clientId, token_endpoint_auth_method: 'none' });
    return this.#readJson<OAuthClientInformationMixed>('client');
  }

  /** Whether the stored registration names another callback address (the hub's port changed since). */
  async registeredElsewhere(): Promise<boolean> {
    const info = await this.#client();
    const registered = info && 'redirect_uris' in info ? info.redirect_uris : undefined;
    return !!registered && !registered.includes(this.redirectUrl);
  }

  /** Whether the stored client is one this server registered (RFC 7591): not an entered client ID, nor a metadata document's URL. */
  async registeredDynamically(): Promise<boolean> {
    if (this.options.clientId) return false;
    const info = await this.#readJson<OAuthClientInformationMixed>('client');
    return !!info && !/^https:\/\//i.test(info.client_id);
  }

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    if (this.#besideUserSignIn()) throw new UnauthorizedError(USER_SIGN_IN_WAITS);
    await this.#write('client', JSON.stringify(info));
  }

  /**
   * The tokens to send; none once retired (a connection still open after a sign-out sends none). None for
   * the SDK's auth of a sign-in the user started either: it must ask the user (a step-up keeps the tokens
   * in use until the new ones come), not refresh.
   */
  async tokens(): Promise<OAuthTokens | undefined> {
    if (this.retired || this.#runs.inUserSignIn) return undefined;
    return this.#tokensFrom(await this.#read('tokens'));
  }

  #tokensFrom(text: string | undefined): OAuthTokens | undefined {
    const saved = parseJson<StoredTokens>(text);
    return saved?.serverUrl === this.options.serverUrl ? saved.tokens : undefined;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    const exchange = this.#runs.inExchange;
    if (exchange) this.#refreshes.exchangeStored();
    // A refresh sent before a sign-in's code exchange stored its tokens, answered after: the exchange's are newer.
    else if (this.#refreshes.olderThanExchange(tokens.access_token)) return;
    // A refresh's tokens keep the scope the sign-in asked for.
    const asked = exchange ? this.#askedScope : parseJson<StoredTokens>(await this.#read('tokens'))?.scope;
    const entry: StoredTokens = { serverUrl: this.options.serverUrl, tokens, ...(asked ? { scope: asked } : {}) };
    await this.#write('tokens', JSON.stringify(entry));
    this.authorizationUrl = undefined;
  }

  /** Forgets the stored tokens (a sign-in the user starts, a sign-out): unlike the SDK's invalidateCredentials, always. */
  async forgetTokens(): Promise<void> {
    await this.#write('tokens', undefined);
  }

  /**
   * The server answered insufficient_scope (step-up) to one request: that request fails, the tokens in hand
   * stay (they serve the server's other tools), and the next sign-in asks for the scope named too.
   */
  requireScope(scope: string | undefined): void {
    if (scope) this.requiredScope = unionScopes(this.requiredScope, scope);
  }

  /** The scope a sign-in the user starts asks for: the one asked and granted so far, the 401's, and a step-up's. */
  async signInScope(): Promise<string | undefined> {
    const saved = parseJson<StoredTokens>(await this.#read('tokens'));
    const held = saved?.serverUrl === this.options.serverUrl ? saved : undefined;
    return unionScopes(held?.scope, held?.tokens?.scope, this.challenge.scope, this.requiredScope);
  }

  /** The server refused the token a refresh had just issued: refreshing again will not mend it. */
  refusedAfterRefresh(message: string): void {
    if (!this.retired) this.options.onSignInNeeded?.(this.options.serverId, message);
  }

  redirectToAuthorization(url: URL): void {
    this.#askedScope = url.searchParams.get('scope') ?? undefined;
    this.authorizationUrl = url.href;
    // A step-up the user started keeps the tokens in use: the server goes on working meanwhile.
    if (this.#runs.inUserSignIn && this.hasCachedTokens) return;
    this.options.onAuthorizationUrl(this.options.serverId, url.href);
  }

  async saveCodeVerifier(verifier: string): Promise<void> {
    if (this.#besideUserSignIn()) throw new UnauthorizedError(USER_SIGN_IN_WAITS);
    await this.#write('verifier', verifier);
  }

  async codeVerifier(): Promise<string> {
    // The server refused this exchange's code or client: the SDK's retry with the same code stops here.
    this.#runs.stopIfExchangeRefused();
    // An exchange sends its own sign-in's verifier: a newer sign-in's, stored meanwhile, is not the code's.
    const verifier = this.#runs.exchangeVerifier ?? (await this.#read('verifier'));
    if (!verifier) throw new Error('No sign-in is waiting for this server (its code verifier is missing): start the sign-in again.');
    return verifier;
  }

  /**
   * Called by the SDK after discovery, before it registers, opens the authorization URL or posts a code or
   * token: an authorization server with plain-http endpoints off this computer is refused here.
   */
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    checkAuthServerEndpoints(state.authorizationServerUrl, state.authorizationServerMetadata);
    this.#discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#discovery;
  }

  /**
   * The SDK drops what a server refused: the tokens on invalid_grant, everything on invalid_client. During a
   * sign-in's code exchange it is the code or the client of that sign-in that was refused: only its verifier
   * goes (not a newer sign-in's stored meanwhile), the SDK's retry stops, and the tokens in use stay (a
   * step-up keeps them; the server works on). A client refused at a sign-in's (not a step-up's) exchange
   * goes too, if still the one that exchange used: the server forgot it, and the next Sign in registers anew.
   */
  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (this.#runs.inExchange) {
      const { verifier, client } = this.#runs.exchangeRefused(scope, !!this.requiredScope);
      if ((await this.#read('verifier')) === verifier) await this.#write('verifier', undefined);
      if (client && (await this.#readJson<OAuthClientInformationMixed>('client'))?.client_id === client) await this.#write('client', undefined);
      return;
    }
    if (scope === 'all' || scope === 'discovery') {
      this.#discovery = undefined;
      this.#noSignIn = false;
    }
    if (scope === 'all' || scope === 'client') await this.#write('client', undefined);
    if (scope === 'tokens' && (await this.#refreshedMeanwhile())) return;
    if (scope === 'all' || scope === 'tokens') await this.#write('tokens', undefined);
    if (scope === 'all' || scope === 'verifier') await this.#write('verifier', undefined);
  }

  /**
   * Whether the tokens stored now came after a refresh the server refused: the SDK drops the tokens when a
   * refresh is refused, and a refresh sent with a token another one had spent meanwhile must not drop the
   * fresh tokens that other one stored.
   */
  async #refreshedMeanwhile(): Promise<boolean> {
    return this.#refreshes.storedAfterRefusal(this.#tokensFrom(await this.#read('tokens'))?.refresh_token);
  }

  /** Whether tokens for this server are stored, as far as this run has read them (undefined: not read yet). */
  get hasCachedTokens(): boolean | undefined {
    return this.#cache.has('tokens') ? this.#tokensFrom(this.#cache.get('tokens')) !== undefined : undefined;
  }

  async #read(slot: Slot): Promise<string | undefined> {
    if (!this.#cache.has(slot)) this.#cache.set(slot, await this.options.store.get(this.options.serverId, OAUTH_SECRETS[slot]));
    return this.#cache.get(slot);
  }

  async #readJson<T>(slot: Slot): Promise<T | undefined> {
    return parseJson<T>(await this.#read(slot));
  }

  /** Stores (or, undefined, forgets) a value; a retired provider writes nothing, not even a deletion (the values may be another provider's by then). */
  async #write(slot: Slot, value: string | undefined): Promise<void> {
    if (this.retired) return;
    const writing = (async () => {
      if (value === undefined) await this.options.store.delete(this.options.serverId, OAUTH_SECRETS[slot]);
      else await this.options.store.set(this.options.serverId, OAUTH_SECRETS[slot], value);
      this.#cache.set(slot, value);
    })();
    this.#writes.add(writing);
    try {
      await writing;
    } finally {
      this.#writes.delete(writing);
    }
  }
}
