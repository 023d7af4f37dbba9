/**
 * Step-up (issue 15) at a server that needs scope `read` for every request and `admin` for one tool: the
 * first Sign in asks for the scope the server's 401 named, and the step-up sign-in asks for both, so the
 * server keeps working for `read` afterwards.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestHub } from '../support/hub-harness.js';
import { browse } from '../support/oauth-browser.js';
import { signIn, startOAuthHub, type OAuthHub } from '../support/oauth-flow.js';

let oauth: OAuthHub;
let hub: TestHub;
beforeAll(async () => {
  oauth = await startOAuthHub(['--required-scope', 'read', '--token-lifetime', '300']);
  hub = oauth.hub;
});
afterAll(() => oauth?.stop());

const text = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as Array<{ text: string }>).map((c) => c.text).join('\n');
const scopes = (url: string) => (new URL(url).searchParams.get('scope') ?? '').split(' ').sort();

it('the step-up sign-in asks for the scopes held and the one challenged', async () => {
  await hub.waitForStatus('remote', 'needs-sign-in');
  expect(scopes((await signIn(hub)).href)).toEqual(['read']);
  const client = await hub.connect();
  expect((await client.callTool({ name: 'remote__admin_report', arguments: {} })).isError).toBe(true);

  const stepUp = await hub.api<{ authorizationUrl: string }>('upstreams.signIn', { id: 'remote' });
  expect(scopes(stepUp.value!.authorizationUrl)).toEqual(['admin', 'read']);
  expect((await browse(stepUp.value!.authorizationUrl)).status).toBe(200);
  const whoami = await client.callTool({ name: 'remote__whoami', arguments: {} });
  expect(whoami.isError).toBeFalsy();
  expect(text(await client.callTool({ name: 'remote__admin_report', arguments: {} }))).toMatch(/scopes: (read admin|admin read)/);
  expect(hub.hub.pool.get('remote')?.status).toBe('ready');
});
