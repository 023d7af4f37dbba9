/**
 * Sign out and Remove while the upstream's transport is refreshing its token by itself (audit s13, oauth
 * 1): the refresh must not store tokens after the sign-out or removal forgot them. The OAuth fixture holds
 * the refresh at its token endpoint until the test lets it go, after the sign-out or removal, and offers
 * no revocation (as many providers do not), so nothing at the server cancels the refresh token meanwhile.
 * The test then waits until the SDK is done with that refresh, and looks at the store.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { OAUTH_SECRETS, type UpstreamOAuthProvider } from '../../electron/core/oauth/upstream-oauth-provider.js';
import { signIn, startOAuthHub, type OAuthHub } from '../support/oauth-flow.js';

let h: OAuthHub;
const post = async (path: string) => (await fetch(new URL(path, h.server.url), { method: 'POST' })).body?.cancel();
const storedTokens = () => h.hub.hub.secretStore.get('remote', OAUTH_SECRETS.tokens);

beforeAll(async () => {
  h = await startOAuthHub(['--token-lifetime', '600', '--no-revocation']);
});
afterAll(async () => h?.stop());
afterEach(() => {
  vi.restoreAllMocks();
});

/**
 * Resolves once the SDK is done with a refresh it sent: as its auth() ends a refresh either way, it hands
 * `provider` the new tokens (saveTokens) or, without them, asks it for a new sign-in (state); the provider
 * has then settled that call.
 */
function refreshEnded(provider: UpstreamOAuthProvider): Promise<void> {
  const saveTokens = provider.saveTokens.bind(provider);
  const state = provider.state.bind(provider);
  return new Promise((resolve) => {
    const ended = <T>(call: Promise<T>): Promise<T> => {
      call.then(
        () => resolve(),
        () => resolve(),
      );
      return call;
    };
    vi.spyOn(provider, 'saveTokens').mockImplementation((tokens) => ended(saveTokens(tokens)));
    vi.spyOn(provider, 'state').mockImplementation(() => ended(state()));
  });
}

/**
 * Resolves when the hub sends its next token refresh (its connections send through the global fetch, looked
 * up on each request), with the end of that refresh (refreshEnded).
 */
function nextRefresh(provider: UpstreamOAuthProvider): Promise<{ ended: Promise<void> }> {
  const send = globalThis.fetch;
  return new Promise((resolve) => {
    const spy = vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
      if (init?.body instanceof URLSearchParams && init.body.get('grant_type') === 'refresh_token') {
        spy.mockRestore();
        resolve({ ended: refreshEnded(provider) });
      }
      return send(input, init);
    });
  });
}

/**
 * With `remote` signed in, starts a call whose token has expired: the transport sends its refresh, which
 * the token endpoint holds. Gives the call (settled, never rejected) and the end of the refresh (refreshEnded).
 */
async function callDuringHeldRefresh(client: Client): Promise<{ call: Promise<unknown>; refreshed: Promise<void> }> {
  const name = (await client.listTools()).tools.find((t) => t.name.endsWith('whoami'))!.name;
  const provider = h.hub.hub.signIns.oauth.provider('remote')!;
  await post('/token-trouble?mode=hold');
  await post('/expire-access-tokens');
  const refresh = nextRefresh(provider);
  const call = client.callTool({ name, arguments: {} }).catch((err: unknown) => err);
  return { call, refreshed: (await refresh).ended };
}

/** Lets the held refresh go (the server grants it: an answer after the sign-out), and waits until the SDK is done with it. */
async function releaseRefresh(refreshed: Promise<void>): Promise<void> {
  await post('/token-trouble?mode=off');
  await refreshed;
}

describe('a refresh under way when the sign-in is forgotten', () => {
  it('Sign out during a refresh leaves no tokens, and Restart then asks for a sign-in', async () => {
    await h.hub.waitForStatus('remote', 'needs-sign-in');
    await signIn(h.hub);
    const client = await h.hub.connect();
    const { call, refreshed } = await callDuringHeldRefresh(client);
    expect((await h.hub.api('upstreams.signOut', { id: 'remote' })).ok).toBe(true);
    await releaseRefresh(refreshed);
    await call;
    expect(await storedTokens()).toBeUndefined();

    const asked = h.hub.waitFor(
      (e) => e.type === 'upstream.status' && e.server === 'remote' && (e.status === 'ready' || e.status === 'needs-sign-in'),
    );
    expect((await h.hub.api('upstreams.restart', { id: 'remote' })).ok).toBe(true);
    expect(await asked).toMatchObject({ status: 'needs-sign-in' });
    await client.close();
  });

  it('Remove during a refresh leaves no tokens: the same server added again needs a sign-in', async () => {
    await signIn(h.hub);
    const client = await h.hub.connect();
    const { call, refreshed } = await callDuringHeldRefresh(client);
    expect((await h.hub.api('upstreams.remove', { id: 'remote' })).ok).toBe(true);
    await releaseRefresh(refreshed);
    await call;
    expect(await storedTokens()).toBeUndefined();

    const asked = h.hub.waitFor(
      (e) => e.type === 'upstream.status' && e.server === 'remote' && (e.status === 'ready' || e.status === 'needs-sign-in'),
    );
    expect((await h.hub.api('upstreams.add', { id: 'remote', config: { type: 'http', url: h.server.url, headers: {} } })).ok).toBe(true);
    expect(await asked).toMatchObject({ status: 'needs-sign-in' });
    await client.close();
  });
});
