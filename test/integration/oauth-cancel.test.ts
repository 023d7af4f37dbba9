/**
 * Cancelling a sign-in (issue 15): after upstreams.cancelSignIn, the browser's redirect that still comes
 * back is refused with a page saying it was cancelled, no token is issued to the hub, and the server keeps
 * needing a sign-in; a new Sign in then works.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestHub } from '../support/hub-harness.js';
import { browse } from '../support/oauth-browser.js';
import { startOAuthHub, type OAuthHub } from '../support/oauth-flow.js';

let oauth: OAuthHub;
let hub: TestHub;
const codeGrants = async () => (await oauth.server.stats()).codeGrants;

beforeAll(async () => {
  oauth = await startOAuthHub(['--token-lifetime', '300']);
  hub = oauth.hub;
});
afterAll(() => oauth?.stop());

const signIn = async () => (await hub.api<{ authorizationUrl: string }>('upstreams.signIn', { id: 'remote' })).value!.authorizationUrl;

describe('cancelling a sign-in', () => {
  it('refuses the redirect that comes back afterwards, and the server still needs a sign-in', async () => {
    await hub.waitForStatus('remote', 'needs-sign-in');
    const url = await signIn();
    expect((await hub.api('upstreams.cancelSignIn', { id: 'remote' })).value).toEqual({ cancelled: true });
    expect((await hub.api('upstreams.cancelSignIn', { id: 'remote' })).value).toEqual({ cancelled: false });

    const page = await browse(url);
    expect(page.status).toBe(400);
    expect(page.text).toContain('This sign-in was cancelled in Spillway.');
    expect(await codeGrants()).toBe(0); // the code was never exchanged for tokens
    expect(hub.hub.pool.get('remote')?.status).toBe('needs-sign-in');
    const listed = await hub.api<Array<{ id: string; auth?: { state: string } }>>('upstreams.list');
    expect(listed.value?.find((u) => u.id === 'remote')?.auth?.state).toBe('needs-sign-in');

    const ready = hub.waitForStatus('remote', 'ready');
    expect((await browse(await signIn())).status).toBe(200);
    await ready;
    expect(await codeGrants()).toBe(1);
  });

  it('refuses to cancel for a server that does not sign in, naming it', async () => {
    const answer = await hub.api('upstreams.cancelSignIn', { id: 'nothing' });
    expect(answer).toMatchObject({ ok: false, code: 'not_found', field: 'id' });
  });
});
