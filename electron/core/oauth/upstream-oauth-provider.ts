/**
 * The SDK's OAuthClientProvider for one HTTP or SSE upstream (issue 15). The SDK drives it: it reads
 * tokens for every request, refreshes them on a 401, registers the client, and when the user must sign in
 * it asks for a `state`, saves the PKCE verifier and hands over the authorization URL. Tokens, the client
 * registration and the verifier live in the secret store only (never config.json, logs or events); a copy
 * is kept in memory because tokens() runs for every request.
 */
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { SecretStore } from '../secrets/secret-store.js';
import { checkAuthServerEndpoints } from './auth-server-requests.js';
import type { PendingSignIns } from './pending-sign-ins.js';

/** The secret store's names for a server's OAuth values. */
export const OAUTH_SECRETS = { tokens: 'oauth:tokens', client: 'oauth:client', verifier: 'oauth:verifier' } as const;

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
}

type Slot = keyof typeof OAUTH_SECRETS;

export class UpstreamOAuthProvider implements OAuthClientProvider {
  /** The last authorization URL handed over (cleared once signed in). */
  authorizationUrl: string | undefined;
  /** The scope a 403 asked for (step-up): the next sign-in asks for it. */
  requiredScope: string | undefined;
  #discovery: OAuthDiscoveryState | undefined;
  readonly #cache = new Map<Slot, string | undefined>();

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

  /** A new authorization's state; the server's older waiting ones are refused from now on (the verifier saved next replaces theirs). */
  state(): string {
    this.options.pending.replace(this.options.serverId);
    return this.options.pending.create(this.options.serverId);
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    // A public client (PKCE, no secret) the user made in the service's developer settings.
    if (this.options.clientId) return { client_id: this.options.clientId, token_endpoint_auth_method: 'none' };
    return this.#readJson<OAuthClientInformationMixed>('client');
  }

  /** Whether the stored registration names another callback address (the hub's port changed since). */
  async registeredElsewhere(): Promise<boolean> {
    const info = await this.clientInformation();
    const registered = info && 'redirect_uris' in info ? info.redirect_uris : undefined;
    return !!registered && !registered.includes(this.redirectUrl);
  }

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    await this.#write('client', JSON.stringify(info));
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    return this.#tokensFrom(await this.#read('tokens'));
  }

  #tokensFrom(text: string | undefined): OAuthTokens | undefined {
    const saved = parseJson<{ serverUrl?: string; tokens?: OAuthTokens }>(text);
    return saved?.serverUrl === this.options.serverUrl ? saved.tokens : undefined;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.#write('tokens', JSON.stringify({ serverUrl: this.options.serverUrl, tokens }));
    this.authorizationUrl = undefined;
  }

  /**
   * The server answered 403 insufficient_scope (step-up): the tokens in hand cannot do it, so they are
   * dropped and the next authorization asks for the scope named.
   */
  async requireScope(scope: string | undefined): Promise<void> {
    if (scope) this.requiredScope = scope;
    await this.invalidateCredentials('tokens');
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url.href;
    this.options.onAuthorizationUrl(this.options.serverId, url.href);
  }

  async saveCodeVerifier(verifier: string): Promise<void> {
    await this.#write('verifier', verifier);
  }

  async codeVerifier(): Promise<string> {
    const verifier = await this.#read('verifier');
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

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'all' || scope === 'discovery') this.#discovery = undefined;
    if (scope === 'all' || scope === 'client') await this.#write('client', undefined);
    if (scope === 'all' || scope === 'tokens') await this.#write('tokens', undefined);
    if (scope === 'all' || scope === 'verifier') await this.#write('verifier', undefined);
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

  async #write(slot: Slot, value: string | undefined): Promise<void> {
    if (value === undefined) await this.options.store.delete(this.options.serverId, OAUTH_SECRETS[slot]);
    else await this.options.store.set(this.options.serverId, OAUTH_SECRETS[slot], value);
    this.#cache.set(slot, value);
  }
}

const SECRET_FIELDS = ['access_token', 'refresh_token', 'id_token', 'client_secret'] as const;

/**
 * The secrets inside a stored OAuth value (the tokens entry, the client registration), for masking them by
 * value: a server's error text quotes the access token, not the JSON it is stored in. None for other values.
 */
export function oauthSecretsWithin(stored: string): string[] {
  if (!stored.startsWith('{')) return [];
  const entry = parseJson<{ tokens?: unknown }>(stored);
  return [...secretFields(entry), ...secretFields(entry?.tokens)];
}

function secretFields(holder: unknown): string[] {
  if (!holder || typeof holder !== 'object') return [];
  return SECRET_FIELDS.map((field): unknown => Reflect.get(holder, field)).filter((value) => typeof value === 'string');
}

/** A stored JSON value; a damaged entry counts as none (the SDK registers or signs in again). */
function parseJson<T>(text: string | undefined): T | undefined {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}
