/**
 * Parallel calls after the access token expired (issue 15): each call meets a 401 and the SDK refreshes
 * for each with the same (rotating) refresh token. One refresh goes to the server and the others wait for
 * it; a refresh refused because another one already used its token does not forget the fresh tokens.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestHub } from '../support/hub-harness.js';
import { signIn, startOAuthHub, type OAuthHub } from '../support/oauth-flow.js';

let oauth: OAuthHub;
let hub: TestHub;
beforeAll(async () => {
  oauth = await startOAuthHub(['--token-lifetime', '300']);
  hub = oauth.hub;
});
afterAll(() => oauth?.stop());

it('parallel calls after the access token expired keep the sign-in, with one refresh', async () => {
  await hub.waitForStatus('remote', 'needs-sign-in');
  await signIn(hub);
  const client = await hub.connect();
  expect((await client.callTool({ name: 'remote__whoami', arguments: {} })).isError).toBeFalsy();
  const before = await oauth.server.stats();
  await fetch(new URL('/expire-access-tokens', oauth.server.url), { method: 'POST' });
  const results = await Promise.all([1, 2, 3, 4].map(() => client.callTool({ name: 'remote__whoami', arguments: {} })));
  expect(results.map((r) => (r.isError ? JSON.stringify(r.content) : 'ok'))).toEqual(['ok', 'ok', 'ok', 'ok']);
  expect((await oauth.server.stats()).refreshGrants - before.refreshGrants).toBe(1);
  const after = await client.callTool({ name: 'remote__whoami', arguments: {} });
  expect(after.isError).toBeFalsy();
  expect(hub.hub.pool.get('remote')?.status).toBe('ready');
  expect(await hub.hub.secretStore.get('remote', 'oauth:tokens')).toBeDefined();
});
