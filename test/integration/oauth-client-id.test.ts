/**
 * Sign-in where the server does not let apps register themselves (issue 15): many providers offer no
 * dynamic client registration, so the user makes an OAuth app in the service's developer settings and
 * enters its client ID. Against the OAuth fixture without registration and with one pre-registered
 * public client: Sign in without a client ID says exactly what to do (with the redirect URL to register);
 * with the client ID entered, the sign-in completes and the server answers as that client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestHub } from '../support/hub-harness.js';
import { signIn, startOAuthHub, type OAuthHub } from '../support/oauth-flow.js';

const CLIENT_ID = 'spillway-test-app';
let oauth: OAuthHub;
let hub: TestHub;

beforeAll(async () => {
  oauth = await startOAuthHub(['--no-registration', '--client-id', CLIENT_ID]);
  hub = oauth.hub;
});
afterAll(() => oauth?.stop());

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
      config: { type: 'http', url: oauth.server.url, headers: {}, oauthClientId: CLIENT_ID },
    });
    expect(updated).toMatchObject({ ok: true });
    await hub.waitForStatus('remote', 'needs-sign-in');
    const authorizationUrl = await signIn(hub);
    expect(authorizationUrl.searchParams.get('client_id')).toBe(CLIENT_ID);
    const client = await hub.connect();
    const result = await client.callTool({ name: 'remote__whoami', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: `signed in as ${CLIENT_ID}` }]);
  });
});
