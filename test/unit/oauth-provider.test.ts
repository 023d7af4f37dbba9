/**
 * The OAuth pieces of issue 15 on their own: the pending sign-ins (random, single use, expiring) and the
 * per-upstream provider keeping tokens, the client registration and the PKCE verifier in the secret
 * store only.
 */
import { describe, expect, it } from 'vitest';
import { PendingSignIns } from '../../electron/core/oauth/pending-sign-ins.js';
import { OAUTH_SECRETS, UpstreamOAuthProvider, oauthSecretsWithin } from '../../electron/core/oauth/upstream-oauth-provider.js';
import { memorySecretStore as memoryStore } from '../support/memory-secret-store.js';

describe('pending sign-ins', () => {
  it('gives random states, each good once, for its server', () => {
    const pending = new PendingSignIns();
    const a = pending.create('gh');
    const b = pending.create('gh');
    expect(a).not.toBe(b);
    expect(a.length).toBeGreaterThanOrEqual(32);
    expect(pending.take(a)).toEqual({ serverId: 'gh' });
    expect(pending.take(a)).toEqual({ refused: 'unknown' });
    expect(pending.take('made-up')).toEqual({ refused: 'unknown' });
    pending.forget('gh');
    expect(pending.take(b)).toEqual({ refused: 'unknown' });
  });

  it('refuses a state after it expired', () => {
    let now = 1000;
    const pending = new PendingSignIns(60_000, () => now);
    const state = pending.create('notion');
    now += 60_001;
    expect(pending.take(state)).toEqual({ refused: 'expired' });
  });

  it("refuses a cancelled sign-in as cancelled, only that server's, and says whether one was waiting", () => {
    const pending = new PendingSignIns();
    const mine = pending.create('gh');
    const other = pending.create('notion');
    expect(pending.cancel('gh')).toBe(true);
    expect(pending.cancel('gh')).toBe(false); // nothing waiting any more
    expect(pending.take(mine)).toEqual({ refused: 'cancelled' });
    expect(pending.take(mine)).toEqual({ refused: 'unknown' }); // still single use
    expect(pending.take(other)).toEqual({ serverId: 'notion' });
  });

  it("refuses a sign-in replaced by a newer one as replaced, only that server's", () => {
    const pending = new PendingSignIns();
    const older = pending.create('gh');
    const other = pending.create('notion');
    expect(pending.replace('gh')).toBe(true);
    const newer = pending.create('gh');
    expect(pending.cancel('gh')).toBe(true); // the newer one was waiting; the replaced one stays replaced
    expect(pending.take(older)).toEqual({ refused: 'replaced' });
    expect(pending.take(newer)).toEqual({ refused: 'cancelled' });
    expect(pending.take(other)).toEqual({ serverId: 'notion' });
  });
});

describe('the secrets inside stored OAuth values', () => {
  it.each([
    [JSON.stringify({ serverUrl: 'https://x/mcp', tokens: { access_token: 'at-1', refresh_token: 'rt-1', token_type: 'bearer' } }), ['at-1', 'rt-1']],
    [JSON.stringify({ client_id: 'public-id', client_secret: 'cs-1', redirect_uris: [] }), ['cs-1']],
    [JSON.stringify({ serverUrl: 'https://x/mcp', tokens: { access_token: 'at-2', id_token: 'id-2' } }), ['at-2', 'id-2']],
    ['ghp_plainSecretValue', []],
    ['{not json', []],
    ['{"tokens": null}', []],
  ])('%s holds %j', (stored, secrets) => {
    expect(oauthSecretsWithin(stored)).toEqual(secrets);
  });
});

describe('the upstream OAuth provider', () => {
  const make = (store = memoryStore(), port = 4242) => {
    const asked: string[] = [];
    const provider = new UpstreamOAuthProvider({
      serverId: 'remote',
      serverUrl: 'https://remote.example/mcp',
      store,
      pending: new PendingSignIns(),
      redirectUrl: () => `http://127.0.0.1:${port}/oauth/callback`,
      onAuthorizationUrl: (_id, url) => asked.push(url),
    });
    return { provider, store, asked };
  };

  it('keeps tokens, the registration and the verifier in the secret store, and forgets them', async () => {
    const { provider, store } = make();
    await provider.saveTokens({ access_token: 'at-1', token_type: 'bearer', refresh_token: 'rt-1' });
    await provider.saveClientInformation({ client_id: 'c1', client_secret: 's1', redirect_uris: [provider.redirectUrl] });
    await provider.saveCodeVerifier('v1');
    expect(JSON.parse(store.items.get(`remote/${OAUTH_SECRETS.tokens}`)!)).toMatchObject({ tokens: { access_token: 'at-1' } });
    expect(store.items.get(`remote/${OAUTH_SECRETS.verifier}`)).toBe('v1');
    // A second provider (a restart) reads them back from the store.
    const again = make(store).provider;
    expect(await again.tokens()).toMatchObject({ refresh_token: 'rt-1' });
    expect(await again.codeVerifier()).toBe('v1');
    expect(again.hasCachedTokens).toBe(true);
    // The server's address was edited: its old tokens are never sent to the new one.
    const moved = new UpstreamOAuthProvider({
      serverId: 'remote',
      serverUrl: 'https://elsewhere.example/mcp',
      store,
      pending: new PendingSignIns(),
      redirectUrl: () => 'http://127.0.0.1:1/oauth/callback',
      onAuthorizationUrl: () => {},
    });
    expect(await moved.tokens()).toBeUndefined();
    expect(moved.hasCachedTokens).toBe(false);
    await again.invalidateCredentials('tokens');
    expect(await again.tokens()).toBeUndefined();
    expect(store.items.has(`remote/${OAUTH_SECRETS.tokens}`)).toBe(false);
    await again.invalidateCredentials('all');
    expect(store.items.size).toBe(0);
  });

  it('hands the authorization URL over and notices a registration for another callback port', async () => {
    const { provider, store, asked } = make();
    provider.redirectToAuthorization(new URL('https://auth.example/authorize?x=1'));
    expect(asked).toEqual(['https://auth.example/authorize?x=1']);
    expect(provider.authorizationUrl).toBe('https://auth.example/authorize?x=1');
    await provider.saveClientInformation({ client_id: 'c1', redirect_uris: [provider.redirectUrl] });
    expect(await provider.registeredElsewhere()).toBe(false);
    expect(await make(store, 5555).provider.registeredElsewhere()).toBe(true);
    await provider.saveTokens({ access_token: 'at', token_type: 'bearer' });
    expect(provider.authorizationUrl).toBeUndefined();
  });

  it('refuses discovery of an authorization server with plain-http endpoints off this computer', () => {
    const { provider } = make();
    const metadata = {
      issuer: 'https://auth.example/',
      authorization_endpoint: 'http://auth.example/authorize',
      token_endpoint: 'https://auth.example/token',
      response_types_supported: ['code'],
    };
    expect(() => provider.saveDiscoveryState({ authorizationServerUrl: 'https://auth.example/', authorizationServerMetadata: metadata })).toThrow(
      /not secure \(http:\/\/auth\.example\/authorize\)/,
    );
    expect(provider.discoveryState()).toBeUndefined();
  });

  it('asks to start again when no verifier is waiting', async () => {
    await expect(make().provider.codeVerifier()).rejects.toThrow(/start the sign-in again/);
  });
});
