/**
 * A server that signs in with OAuth and also carries a key in its address (`?api_key=…`, kept in the
 * secret store): its sign-in is found by the saved address, while its requests go to the address with the
 * key in it. It needs a sign-in, signs in, and gets ready.
 */
import { afterAll, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../support/hub-harness.js';
import { browse } from '../support/oauth-browser.js';
import { remoteConfig, startOAuthFixture, type OAuthFixture } from '../support/oauth-flow.js';

let server: OAuthFixture;
let hub: TestHub;
afterAll(async () => {
  await hub?.stop();
  await server?.stop();
});

it('a server with a key in its address needs a sign-in, signs in, and gets ready', async () => {
  server = await startOAuthFixture('--token-lifetime', '600');
  hub = await startTestHub(remoteConfig(`${server.url}?api_key=k-123456789`));
  await hub.waitForStatus('remote', 'needs-sign-in');
  const answer = await hub.api<{ authorizationUrl: string }>('upstreams.signIn', { id: 'remote' });
  expect(answer.ok, answer.message).toBe(true);
  const ready = hub.waitForStatus('remote', 'ready');
  expect((await browse(answer.value!.authorizationUrl)).status).toBe(200);
  await ready;
  const listed = await hub.api<Array<{ id: string; auth?: { state: string } }>>('upstreams.list');
  expect(listed.value!.find((u) => u.id === 'remote')?.auth?.state).toBe('signed-in');
});
