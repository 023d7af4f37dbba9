/**
 * Refreshes of one signed-in upstream run one at a time (issue 15): parallel calls that meet a 401 each
 * refresh with the same refresh token, which a server that rotates them grants once. The ones with the
 * same token share the answer; a refresh refused because another one spent its token meanwhile does not
 * make the provider forget the fresh tokens that other one stored.
 */
import { describe, expect, it } from 'vitest';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { connectionAuthFetch } from '../../electron/core/oauth/connection-auth-fetch.js';
import { PendingSignIns } from '../../electron/core/oauth/pending-sign-ins.js';
import { OAUTH_SECRETS, UpstreamOAuthProvider } from '../../electron/core/oauth/upstream-oauth-provider.js';
import { memorySecretStore } from '../support/memory-secret-store.js';

const TOKEN_URL = 'https://auth.example.com/token';
const refresh = (fetchFn: FetchLike, token: string) =>
  fetchFn(TOKEN_URL, { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }) });

describe('refreshes one at a time', () => {
  it('refreshes sent with the same token at once make one request and share its answer', async () => {
    const sent: string[] = [];
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const base: FetchLike = async (_url, init) => {
      sent.push((init?.body as URLSearchParams).get('refresh_token')!);
      await held;
      return new Response(JSON.stringify({ access_token: `at-${sent.length}`, refresh_token: `rt-${sent.length}` }), { status: 200 });
    };
    const fetchFn = connectionAuthFetch(base, {
      timeoutMs: 5000,
      stop: new AbortController().signal,
      registrationEndpoint: () => undefined,
      onRefresh: () => {},
    });
    const answers = [refresh(fetchFn, 'rt-0'), refresh(fetchFn, 'rt-0'), refresh(fetchFn, 'rt-0')];
    release();
    const bodies = await Promise.all(answers.map(async (a) => (await a).json()));
    expect(sent).toEqual(['rt-0']);
    expect(bodies).toEqual([1, 2, 3].map(() => ({ access_token: 'at-1', refresh_token: 'rt-1' })));
  });

  it('a refresh with another token waits for the one under way; a refusal names the token it refused', async () => {
    const order: string[] = [];
    const refused: string[] = [];
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const base: FetchLike = async (_url, init) => {
      const token = (init?.body as URLSearchParams).get('refresh_token')!;
      order.push(`start ${token}`);
      if (token === 'rt-a') await held;
      order.push(`end ${token}`);
      return new Response('{"error":"invalid_grant"}', { status: 400 });
    };
    const fetchFn = connectionAuthFetch(base, {
      timeoutMs: 5000,
      stop: new AbortController().signal,
      registrationEndpoint: () => undefined,
      onRefresh: () => {},
      onRefreshRefused: (token) => refused.push(token),
    });
    const first = refresh(fetchFn, 'rt-a');
    const second = refresh(fetchFn, 'rt-b');
    release();
    expect([(await first).status, (await second).status]).toEqual([400, 400]);
    expect(order).toEqual(['start rt-a', 'end rt-a', 'start rt-b', 'end rt-b']);
    expect(refused).toEqual(['rt-a', 'rt-b']);
  });
});

describe('a refused refresh and the tokens stored', () => {
  function provider() {
    const store = memorySecretStore();
    const p = new UpstreamOAuthProvider({
      serverId: 'remote',
      serverUrl: 'https://mcp.example.com/mcp',
      store,
      pending: new PendingSignIns(),
      redirectUrl: () => 'http://127.0.0.1:1/oauth/callback',
      onAuthorizationUrl: () => {},
    });
    return { p, store };
  }
  /** The provider's connection fetch over a token endpoint that refuses every refresh. */
  const refusing = (p: UpstreamOAuthProvider) => p.authRequests(async () => new Response('{"error":"invalid_grant"}', { status: 400 }));

  it('keeps the tokens another refresh stored meanwhile', async () => {
    const { p, store } = provider();
    await p.saveTokens({ access_token: 'at-2', refresh_token: 'rt-2', token_type: 'bearer' });
    // This refresh was sent with rt-1, which the refresh that stored rt-2 had spent.
    await refresh(refusing(p), 'rt-1');
    await p.invalidateCredentials('tokens');
    expect((await p.tokens())?.refresh_token).toBe('rt-2');
    expect(await store.get('remote', OAUTH_SECRETS.tokens)).toBeDefined();
  });

  it('forgets the tokens whose own refresh token was refused', async () => {
    const { p, store } = provider();
    await p.saveTokens({ access_token: 'at-1', refresh_token: 'rt-1', token_type: 'bearer' });
    await refresh(refusing(p), 'rt-1');
    await p.invalidateCredentials('tokens');
    expect(await p.tokens()).toBeUndefined();
    expect(await store.get('remote', OAUTH_SECRETS.tokens)).toBeUndefined();
  });
});
