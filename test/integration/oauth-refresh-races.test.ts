/**
 * Sign out and Remove while the upstream's transport is refreshing its token by itself (audit s13, oauth
 * 1): the refresh must not store tokens after the sign-out or removal forgot them. The OAuth fixture holds
 * the refresh at its token endpoint until the test lets it go, and offers no revocation (as many providers
 * do not), so nothing at the server cancels the refresh token meanwhile.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { OAUTH_SECRETS } from '../../electron/core/oauth/upstream-oauth-provider.js';
import { signIn, startOAuthHub, type OAuthHub } from '../support/oauth-flow.js';

let h: OAuthHub;
const post = async (path: string) => (await fetch(new URL(path, h.server.url), { method: 'POST' })).body?.cancel();
const storedTokens = () => h.hub.hub.secretStore.get('remote', OAUTH_SECRETS.tokens);
/** The fixture's counts: refresh grants, and token requests met while the token endpoint was in trouble. */
const counts = async () => (await (await fetch(new URL('/stats', h.server.url))).json()) as { refreshGrants: number; tokenTroubles?: number };

beforeAll(async () => {
  h = await startOAuthHub(['--token-lifetime', '600', '--no-revocation']);
});
afterAll(async () => h?.stop());

/** Resolves once `check` holds, looking every 20 ms (for the fixture's counts, which send no events). */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Signs `remote` in, then starts a call whose token has expired: the transport's refresh reaches the
 * token endpoint and is held there. Gives the call (settled, never rejected) and the refreshes granted so far.
 */
async function callDuringHeldRefresh(client: Client): Promise<{ call: Promise<unknown>; granted: number }> {
  const name = (await client.listTools()).tools.find((t) => t.name.endsWith('whoami'))!.name;
  const { tokenTroubles: troubles = 0, refreshGrants: granted } = await counts();
  await post('/token-trouble?mode=hold');
  await post('/expire-access-tokens');
  const call = client.callTool({ name, arguments: {} }).catch((err: unknown) => err);
  await until(async () => ((await counts()).tokenTroubles ?? 0) > troubles, 'the refresh to reach the token endpoint');
  return { call, granted };
}

/** Lets the held refresh go and waits until the fixture granted it: a late save lands just after. */
async function releaseRefresh(granted: number): Promise<void> {
  await post('/token-trouble?mode=off');
  await until(async () => (await counts()).refreshGrants > granted, 'the held refresh to be granted');
}

/** No tokens are stored, and none arrive in the next second (a late save would land within milliseconds). */
async function expectNoTokensStored(): Promise<void> {
  const deadline = Date.now() + 1000;
  while (Date.now() < deadline) {
    expect(await storedTokens()).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a refresh under way when the sign-in is forgotten', () => {
  it('Sign out during a refresh leaves no tokens, and Restart then asks for a sign-in', async () => {
    await h.hub.waitForStatus('remote', 'needs-sign-in');
    await signIn(h.hub);
    const client = await h.hub.connect();
    const { call, granted } = await callDuringHeldRefresh(client);
    expect((await h.hub.api('upstreams.signOut', { id: 'remote' })).ok).toBe(true);
    await releaseRefresh(granted);
    await call;
    await expectNoTokensStored();

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
    const { call, granted } = await callDuringHeldRefresh(client);
    expect((await h.hub.api('upstreams.remove', { id: 'remote' })).ok).toBe(true);
    await releaseRefresh(granted);
    await call;
    await expectNoTokensStored();

    const asked = h.hub.waitFor(
      (e) => e.type === 'upstream.status' && e.server === 'remote' && (e.status === 'ready' || e.status === 'needs-sign-in'),
    );
    expect((await h.hub.api('upstreams.add', { id: 'remote', config: { type: 'http', url: h.server.url, headers: {} } })).ok).toBe(true);
    expect(await asked).toMatchObject({ status: 'needs-sign-in' });
    await client.close();
  });
});
