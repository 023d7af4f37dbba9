/**
 * Sign-in where the server does not let apps register themselves (issue 15): many providers offer no
 * dynamic client registration, so the user makes an OAuth app in the service's developer settings and
 * enters its client ID. Against the OAuth fixture without registration and with one pre-registered
 * public client: Sign in without a client ID says exactly what to do (with the redirect URL to register);
 * with the client ID entered, the sign-in completes and the server answers as that client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, NODE, startTestHub, type TestHub } from '../support/hub-harness.js';
import { spawnUntil, type Started } from '../support/processes.js';
import { browse } from '../support/oauth-browser.js';

const CLIENT_ID = 'spillway-test-app';
let server: Started;
let hub: TestHub;
const mcpUrl = () => server.match[1]!;

beforeAll(async () => {
  server = await spawnUntil(
    NODE,
    [fixture('oauth-server.mjs'), '--no-registration', '--client-id', CLIENT_ID],
    /^(http:\/\/127\.0\.0\.1:\d+\/mcp)$/m,
  );
  hub = await startTestHub({ version: 1, servers: { remote: { type: 'http', url: mcpUrl(), headers: {} } } });
});
afterAll(async () => {
  await hub?.stop();
  await server?.stop();
});

describe('sign-in with a client ID the user enters', () => {
  it('says what to do without one, and signs in with one', async () => {
    await hub.waitForStatus('remote', 'needs-sign-in');
    const refused = await hub.api('upstreams.signIn', { id: 'remote' });
    expect(refused).toMatchObject({ ok: false, code: 'invalid', field: 'oauthClientId' });
    const callback = new URL('/oauth/callback', hub.url).href;
    expect(refused.message).toContain('does not let apps register themselves');
    expect(refused.message).toContain(callback);

    const updated = await hub.api('upstreams.update', {
      id: 'remote',
      config: { type: 'http', url: mcpUrl(), headers: {}, oauthClientId: CLIENT_ID },
    });
    expect(updated).toMatchObject({ ok: true });
    await hub.waitForStatus('remote', 'needs-sign-in');
    const signIn = await hub.api<{ authorizationUrl: string }>('upstreams.signIn', { id: 'remote' });
    expect(signIn.ok).toBe(true);
    expect(new URL(signIn.value!.authorizationUrl).searchParams.get('client_id')).toBe(CLIENT_ID);
    const ready = hub.waitForStatus('remote', 'ready');
    expect((await browse(signIn.value!.authorizationUrl)).status).toBe(200);
    await ready;
    const client = await hub.connect();
    const result = await client.callTool({ name: 'remote__whoami', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: `signed in as ${CLIENT_ID}` }]);
  });
});
