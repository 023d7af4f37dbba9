/**
 * Step-up (issue 15, the MCP authorization spec's scope challenge): a signed-in server answers a tool
 * call with 403 insufficient_scope naming the scope it needs. The call answers isError saying to sign in
 * for more access; the server stays signed in (its other tools work on), and the next sign-in asks for
 * that scope; after it the call works with a token carrying the scope.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestHub } from '../support/hub-harness.js';
import { browse } from '../support/oauth-browser.js';
import { signIn, startOAuthHub, type OAuthHub } from '../support/oauth-flow.js';

let oauth: OAuthHub;
let hub: TestHub;

beforeAll(async () => {
  oauth = await startOAuthHub(['--token-lifetime', '300']);
  hub = oauth.hub;
});
afterAll(() => oauth?.stop());

const text = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as Array<{ text: string }>).map((c) => c.text).join('\n');

describe('step-up: a 403 insufficient_scope asks the user to sign in for the scope named, the rest working on', () => {
  it('the call says to sign in; the next sign-in asks for the scope; then the call works', async () => {
    await hub.waitForStatus('remote', 'needs-sign-in');
    const first = await signIn(hub);
    expect(first.searchParams.get('scope')).not.toBe('admin');
    const client = await hub.connect();
    expect(text(await client.callTool({ name: 'remote__whoami', arguments: {} }))).toMatch(/^signed in as /);

    const refused = await client.callTool({ name: 'remote__admin_report', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/sign in again to allow more access \(scope admin\)/);
    expect(hub.hub.events.recent().some((e) => e.type === 'log' && /asks for more access \(admin\)/.test(e.message))).toBe(true);
    expect(hub.hub.pool.get('remote')?.status).toBe('ready');
    expect(text(await client.callTool({ name: 'remote__whoami', arguments: {} }))).toMatch(/^signed in as /);

    const second = await hub.api<{ authorizationUrl: string }>('upstreams.signIn', { id: 'remote' });
    expect(new URL(second.value!.authorizationUrl).searchParams.get('scope')).toBe('admin');
    expect((await browse(second.value!.authorizationUrl)).status).toBe(200);
    const answer = await client.callTool({ name: 'remote__admin_report', arguments: {} });
    expect(answer.isError).toBeFalsy();
    expect(text(answer)).toMatch(/scopes: admin/);
  });
});
