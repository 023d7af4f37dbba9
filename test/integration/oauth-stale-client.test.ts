/**
 * A dynamically registered client the authorization server has forgotten (it restarted, or expires its
 * registrations; issue 15): sign-out forgets the registration, and a Sign in after one that never came back
 * registers again, so signing in works without removing the server.
 */
import { afterEach, expect, it } from 'vitest';
import { browse } from '../support/oauth-browser.js';
import { signIn, startOAuthHub, type OAuthHub } from '../support/oauth-flow.js';

let oauth: OAuthHub | undefined;
afterEach(async () => {
  await oauth?.stop();
  oauth = undefined;
});

it('Sign in after a sign-out registers again at a server that forgot the client', async () => {
  oauth = await startOAuthHub(['--token-lifetime', '300']);
  const { hub, server } = oauth;
  await hub.waitForStatus('remote', 'needs-sign-in');
  const first = await signIn(hub);
  expect((await hub.api('upstreams.signOut', { id: 'remote' })).ok).toBe(true);
  await fetch(new URL('/forget-clients', server.url), { method: 'POST' });
  const second = await signIn(hub);
  expect(second.searchParams.get('client_id')).not.toBe(first.searchParams.get('client_id'));
});

it('a second Sign in, after one the server refused for its unknown client, registers again', async () => {
  oauth = await startOAuthHub(['--token-lifetime', '300']);
  const { hub, server } = oauth;
  await hub.waitForStatus('remote', 'needs-sign-in');
  const first = await signIn(hub);
  await fetch(new URL('/forget-clients', server.url), { method: 'POST' });
  const stale = await hub.api<{ authorizationUrl: string }>('upstreams.signIn', { id: 'remote' });
  expect(new URL(stale.value!.authorizationUrl).searchParams.get('client_id')).toBe(first.searchParams.get('client_id'));
  // The server does not know the client: its page never comes back to Spillway.
  expect((await browse(stale.value!.authorizationUrl)).status).toBe(400);
  const fresh = await hub.api<{ authorizationUrl: string }>('upstreams.signIn', { id: 'remote' });
  expect(new URL(fresh.value!.authorizationUrl).searchParams.get('client_id')).not.toBe(first.searchParams.get('client_id'));
  expect((await browse(fresh.value!.authorizationUrl)).status).toBe(200);
  expect((await server.stats()).registrations).toBe(2);
});
