/**
 * A dynamically registered client the authorization server has forgotten (it restarted, or expires its
 * registrations; issue 15): sign-out forgets the registration, and so does a refresh the server refuses with
 * invalid_client, so signing in works without removing the server.
 */
import { afterEach, expect, it } from 'vitest';
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

it('a refresh refused with invalid_client forgets the client: the next Sign in registers again', async () => {
  oauth = await startOAuthHub(['--token-lifetime', '300']);
  const { hub, server } = oauth;
  await hub.waitForStatus('remote', 'needs-sign-in');
  const first = await signIn(hub);
  const client = await hub.connect();
  await fetch(new URL('/forget-clients', server.url), { method: 'POST' });
  await fetch(new URL('/expire-access-tokens', server.url), { method: 'POST' });
  const signedOut = hub.waitForStatus('remote', 'needs-sign-in');
  expect((await client.callTool({ name: 'remote__whoami', arguments: {} })).isError).toBe(true);
  await signedOut;
  const second = await signIn(hub);
  expect(second.searchParams.get('client_id')).not.toBe(first.searchParams.get('client_id'));
  expect((await server.stats()).registrations).toBe(2);
});
