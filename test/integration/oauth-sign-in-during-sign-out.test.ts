/**
 * Sign in pressed while a Sign out's revocation is still under way (a slow revocation endpoint): the new
 * sign-in registers and finishes, and the sign-out, ending, must not delete that registration. Else the
 * tokens stay stored without the client they were issued to, and the next run cannot refresh them.
 */
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { expect, it } from 'vitest';
import { OAuthSignIns } from '../../electron/core/oauth/oauth-sign-ins.js';
import { OAUTH_SECRETS } from '../../electron/core/oauth/upstream-oauth-provider.js';
import { browse } from '../support/oauth-browser.js';
import { signIn } from '../support/oauth-flow.js';
import { useHoldsHub } from '../support/oauth-holds.js';

const holds = useHoldsHub(['--token-lifetime', '600']);

it('a sign-in made while the sign-out revokes keeps its registration stored', async () => {
  const h = holds();
  const { hub, server } = h;
  const store = hub.hub.secretStore;
  await hub.waitForStatus('remote', 'needs-sign-in');
  await signIn(hub);

  await h.post('/revoke-trouble?mode=hold');
  const signOut = hub.api<{ revoked: boolean }>('upstreams.signOut', { id: 'remote' });
  await h.waitHeld('revoke', 1);

  // The user signs in again meanwhile, and finishes in the browser.
  const page = await browse(await h.signInUrl());
  expect(page.status, page.text).toBe(200);

  await h.post('/revoke-trouble?mode=off');
  const signedOut = await signOut;
  expect(signedOut.ok, signedOut.message).toBe(true);
  // The revocation still went out with the client the old tokens were issued to.
  expect((await server.stats()).revocations).toBeGreaterThan(0);
  await hub.waitForStatus('remote', 'ready');

  expect(await store.get('remote', OAUTH_SECRETS.tokens)).toBeDefined();
  expect(await store.get('remote', OAUTH_SECRETS.client)).toBeDefined();
  // What the next run reads (a new provider on the same store): its refresh works with the stored client.
  const nextRun = new OAuthSignIns({ store, redirectUrl: () => new URL('/oauth/callback', hub.url).href, onNeedsSignIn: () => {} });
  await h.post('/expire-access-tokens');
  expect(await auth(nextRun.providerFor('remote', server.url), { serverUrl: server.url })).toBe('AUTHORIZED');
});
