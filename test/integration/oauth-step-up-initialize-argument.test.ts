/**
 * A tool call whose arguments hold `"method": "initialize"` meets a step-up: it is a call, not the connect,
 * so it fails and the tokens in use stay (the server's other tools keep working).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signIn, startOAuthHub, type OAuthHub } from '../support/oauth-flow.js';

let oauth: OAuthHub;
beforeAll(async () => {
  oauth = await startOAuthHub(['--token-lifetime', '300']);
});
afterAll(() => oauth?.stop());
const text = (r: Awaited<ReturnType<Client['callTool']>>) => (r.content as Array<{ text: string }>).map((c) => c.text).join('\n');

it('a step-up on a call with {"method":"initialize"} in its arguments keeps the sign-in', async () => {
  const { hub } = oauth;
  await hub.waitForStatus('remote', 'needs-sign-in');
  await signIn(hub);
  const client = await hub.connect();
  expect((await client.callTool({ name: 'remote__admin_report', arguments: { method: 'initialize' } })).isError).toBe(true);
  expect(await hub.hub.secretStore.get('remote', 'oauth:tokens')).toBeDefined();
  const after = await client.callTool({ name: 'remote__whoami', arguments: {} });
  expect(text(after)).toMatch(/^signed in as /);
  expect(hub.hub.pool.get('remote')?.status).toBe('ready');
});
