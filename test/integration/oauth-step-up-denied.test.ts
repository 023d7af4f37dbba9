/**
 * Step-up (issue 15) for a scope this account may not have: the tool that needs it fails with words to sign
 * in for more access, while the server stays signed in and its other tools keep working; the step-up
 * sign-in, refused in the browser, leaves the sign-in as it was, and the next Sign in no longer asks for
 * the refused scope.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestHub } from '../support/hub-harness.js';
import { browse } from '../support/oauth-browser.js';
import { signIn, startOAuthHub, type OAuthHub } from '../support/oauth-flow.js';

let oauth: OAuthHub;
let hub: TestHub;
beforeAll(async () => {
  oauth = await startOAuthHub(['--deny-scope', 'admin', '--token-lifetime', '300']);
  hub = oauth.hub;
});
afterAll(() => oauth?.stop());

const text = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as Array<{ text: string }>).map((c) => c.text).join('\n');
const listed = async () =>
  (await hub.api<{ id: string; status: string; auth?: { state: string } }[]>('upstreams.list')).value!.find((u) => u.id === 'remote')!;

it('a denied step-up keeps the server signed in and its other tools working', async () => {
  await hub.waitForStatus('remote', 'needs-sign-in');
  await signIn(hub);
  const client = await hub.connect();
  const tokens = await hub.hub.secretStore.get('remote', 'oauth:tokens');

  const refused = await client.callTool({ name: 'remote__admin_report', arguments: {} });
  expect(refused.isError).toBe(true);
  expect(text(refused)).toMatch(/sign in again to allow more access \(scope admin\)/);
  // The one call failed; the server and its tokens stay.
  expect(hub.hub.pool.get('remote')?.status).toBe('ready');
  expect(await hub.hub.secretStore.get('remote', 'oauth:tokens')).toBe(tokens);
  expect(hub.hub.signIns.authInfo('remote')).toMatchObject({ state: 'signed-in', notice: expect.stringMatching(/scope admin/) });
  expect((await client.callTool({ name: 'remote__whoami', arguments: {} })).isError).toBeFalsy();

  // The step-up sign-in asks for admin; the account may not have it.
  const stepUp = await hub.api<{ authorizationUrl: string }>('upstreams.signIn', { id: 'remote' });
  expect(new URL(stepUp.value!.authorizationUrl).searchParams.get('scope')).toMatch(/\badmin\b/);
  expect((await browse(stepUp.value!.authorizationUrl)).status).toBe(400);
  expect(hub.hub.pool.get('remote')?.status).toBe('ready');
  expect((await client.callTool({ name: 'remote__whoami', arguments: {} })).isError).toBeFalsy();

  // The next Sign in asks for the access the account has, and works.
  const again = await hub.api<{ authorizationUrl: string }>('upstreams.signIn', { id: 'remote' });
  expect(new URL(again.value!.authorizationUrl).searchParams.get('scope') ?? '').not.toMatch(/\badmin\b/);
  expect((await browse(again.value!.authorizationUrl)).status).toBe(200);
  expect((await client.callTool({ name: 'remote__whoami', arguments: {} })).isError).toBeFalsy();
  expect((await listed()).auth?.state).toBe('signed-in');
  expect(hub.hub.signIns.authInfo('remote').notice).toBeUndefined();
});
