/**
 * Step-up (issue 15, the MCP authorization spec's scope challenge): a signed-in server answers a tool
 * call with 403 insufficient_scope naming the scope it needs. The call answers isError saying to sign
 * in; the server needs a sign-in again, and the next sign-in asks for that scope; after it the call works
 * with a token carrying the scope.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, NODE, startTestHub, type TestHub } from '../support/hub-harness.js';
import { spawnUntil, type Started } from '../support/processes.js';
import { browse } from '../support/oauth-browser.js';

let server: Started;
let hub: TestHub;
const mcpUrl = () => server.match[1]!;

beforeAll(async () => {
  server = await spawnUntil(NODE, [fixture('oauth-server.mjs'), '--token-lifetime', '300'], /^(http:\/\/127\.0\.0\.1:\d+\/mcp)$/m);
  hub = await startTestHub({ version: 1, servers: { remote: { type: 'http', url: mcpUrl(), headers: {} } } });
});
afterAll(async () => {
  await hub?.stop();
  await server?.stop();
});

async function signIn(): Promise<URL> {
  const answer = await hub.api<{ authorizationUrl: string }>('upstreams.signIn', { id: 'remote' });
  expect(answer.ok).toBe(true);
  const ready = hub.waitForStatus('remote', 'ready');
  const url = new URL(answer.value!.authorizationUrl);
  expect((await browse(url.href)).status).toBe(200);
  await ready;
  return url;
}

const text = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as Array<{ text: string }>).map((c) => c.text).join('\n');

describe('step-up: a 403 insufficient_scope asks the user to sign in for the scope named', () => {
  it('the call says to sign in; the next sign-in asks for the scope; then the call works', async () => {
    await hub.waitForStatus('remote', 'needs-sign-in');
    const first = await signIn();
    expect(first.searchParams.get('scope')).not.toBe('admin');
    const client = await hub.connect();
    expect(text(await client.callTool({ name: 'remote__whoami', arguments: {} }))).toMatch(/^signed in as /);

    const needsSignIn = hub.waitForStatus('remote', 'needs-sign-in');
    const refused = await client.callTool({ name: 'remote__admin_report', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/sign in/i);
    await needsSignIn;
    expect(hub.hub.events.recent().some((e) => e.type === 'log' && /asks for more access \(admin\)/.test(e.message))).toBe(true);

    const second = await signIn();
    expect(second.searchParams.get('scope')).toBe('admin');
    const answer = await client.callTool({ name: 'remote__admin_report', arguments: {} });
    expect(answer.isError).toBeFalsy();
    expect(text(answer)).toMatch(/scopes: admin/);
  });
});
