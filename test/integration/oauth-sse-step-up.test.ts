/**
 * Step-up (issue 15) at a legacy SSE server: a POST answered 403 insufficient_scope fails that call with
 * words to sign in for more access; the server stays signed in, and the next Sign in asks for the scope.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../support/hub-harness.js';
import { signIn, startOAuthFixture, type OAuthFixture } from '../support/oauth-flow.js';

let server: OAuthFixture;
let hub: TestHub;
beforeAll(async () => {
  server = await startOAuthFixture('--token-lifetime', '300');
  hub = await startTestHub({ version: 1, servers: { remote: { type: 'sse', url: new URL('/sse', server.url).href, headers: {} } } });
});
afterAll(async () => {
  await hub?.stop();
  await server?.stop();
});

const text = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as Array<{ text: string }>).map((c) => c.text).join('\n');

it('SSE: a 403 insufficient_scope asks for a sign-in with the scope', async () => {
  await hub.waitForStatus('remote', 'needs-sign-in');
  await signIn(hub);
  const client = await hub.connect();
  const refused = await client.callTool({ name: 'remote__admin_report', arguments: {} });
  expect(refused.isError).toBe(true);
  expect(text(refused)).toMatch(/sign in again to allow more access \(scope admin\)/);
  expect(hub.hub.pool.get('remote')?.status).toBe('ready');
  expect((await client.callTool({ name: 'remote__whoami', arguments: {} })).isError).toBeFalsy();
  const again = await hub.api<{ authorizationUrl: string }>('upstreams.signIn', { id: 'remote' });
  expect(new URL(again.value!.authorizationUrl).searchParams.get('scope')).toBe('admin');
});
