/**
 * Challenges sent as 401 (issue 15). A 401 with error="insufficient_scope" is a step-up, as a 403 is: the
 * call says to sign in for more access and nothing is refreshed. A 401 for the token a refresh has just
 * issued is not mended by refreshing again: the server needs a sign-in, said in plain words.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, expect, it } from 'vitest';
import { signIn, startOAuthHub, type OAuthHub } from '../support/oauth-flow.js';

let oauth: OAuthHub | undefined;
afterEach(async () => {
  await oauth?.stop();
  oauth = undefined;
});

const text = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as Array<{ text: string }>).map((c) => c.text).join('\n');

it('a 401 insufficient_scope asks for a sign-in with the scope, without refreshing', async () => {
  oauth = await startOAuthHub(['--step-up-401', '--token-lifetime', '300']);
  const { hub, server } = oauth;
  await hub.waitForStatus('remote', 'needs-sign-in');
  await signIn(hub);
  const client = await hub.connect();
  const before = await server.stats();
  const results = [];
  for (let i = 0; i < 3; i++) results.push(await client.callTool({ name: 'remote__admin_report', arguments: {} }));
  for (const result of results) expect(text(result)).toMatch(/sign in again to allow more access \(scope admin\)/);
  expect((await server.stats()).refreshGrants).toBe(before.refreshGrants);
  expect(hub.hub.pool.get('remote')?.status).toBe('ready');
  expect((await client.callTool({ name: 'remote__whoami', arguments: {} })).isError).toBeFalsy();
  const next = await hub.api<{ authorizationUrl: string }>('upstreams.signIn', { id: 'remote' });
  expect(new URL(next.value!.authorizationUrl).searchParams.get('scope')).toBe('admin');
});

it('a 401 for a freshly refreshed token needs a sign-in, after one refresh', async () => {
  oauth = await startOAuthHub(['--token-lifetime', '300']);
  const { hub, server } = oauth;
  await hub.waitForStatus('remote', 'needs-sign-in');
  await signIn(hub);
  const client = await hub.connect();
  expect((await client.callTool({ name: 'remote__whoami', arguments: {} })).isError).toBeFalsy();
  const before = await server.stats();
  await fetch(new URL('/refuse-tokens', server.url), { method: 'POST' });
  const needsSignIn = hub.waitForStatus('remote', 'needs-sign-in');
  const refused = await client.callTool({ name: 'remote__whoami', arguments: {} });
  expect(refused.isError).toBe(true);
  expect(text(refused)).toMatch(/sign in/i);
  expect(text(refused)).not.toMatch(/Server returned 401|Streamable HTTP error/);
  await needsSignIn;
  expect((await server.stats()).refreshGrants - before.refreshGrants).toBe(1);
});
