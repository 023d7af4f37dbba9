/**
 * The browser's redirect to /oauth/callback at the edges (audit s13, oauth 4-6): Restart while the user's
 * sign-in waits in the browser leaves that sign-in alone (it still finishes, and no "newer tab" that was
 * never opened is named); a sign-in that fails in the browser is told to the window through the server's
 * sign-in info, until the next Sign in; and a page on any web site that loads the callback address (an
 * <img>, with no Origin) cannot write into Spillway's log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubEvent } from '../../shared/events.js';
import { browse } from '../support/oauth-browser.js';
import { startOAuthHub, type OAuthHub } from '../support/oauth-flow.js';

let h: OAuthHub;
beforeAll(async () => {
  h = await startOAuthHub(['--token-lifetime', '600']);
});
afterAll(async () => h?.stop());

type Listed = { id: string; status: string; auth?: { state: string; authorizationUrl?: string; failure?: string } };
const remote = async () => (await h.hub.api<Listed[]>('upstreams.list')).value!.find((u) => u.id === 'remote')!;
const startSignIn = async () => (await h.hub.api<{ authorizationUrl: string }>('upstreams.signIn', { id: 'remote' })).value!.authorizationUrl;

/** The hub's callback address for an authorization URL, with these query values. */
function callback(authorizationUrl: string, values: Record<string, string>): URL {
  const asked = new URL(authorizationUrl);
  const back = new URL(asked.searchParams.get('redirect_uri')!);
  back.searchParams.set('state', asked.searchParams.get('state')!);
  for (const [name, value] of Object.entries(values)) back.searchParams.set(name, value);
  return back;
}

describe('the OAuth callback', () => {
  it('a sign-in the browser denies is told on the server’s sign-in info, until Sign in is pressed again', async () => {
    await h.hub.waitForStatus('remote', 'needs-sign-in');
    expect((await remote()).auth?.failure).toBeUndefined();
    const url = await startSignIn();
    const logged = h.hub.waitFor((e) => e.type === 'log' && e.server === 'remote' && /Sign-in failed/.test(e.message));
    expect((await fetch(callback(url, { error: 'access_denied' }))).status).toBe(400);
    await logged; // the window hears of it, and reads the server again
    expect(await remote()).toMatchObject({
      status: 'needs-sign-in',
      auth: { state: 'needs-sign-in', failure: expect.stringMatching(/Access was denied/) },
    });

    const again = await startSignIn();
    expect((await remote()).auth?.failure).toBeUndefined();
    expect((await browse(again)).status).toBe(200);
    await h.hub.waitForStatus('remote', 'ready');
    const out = h.hub.waitFor((e) => e.type === 'upstream.status' && e.server === 'remote' && e.status === 'needs-sign-in');
    expect((await h.hub.api('upstreams.signOut', { id: 'remote' })).ok).toBe(true);
    await out;
  });

  it('Restart while a sign-in waits in the browser leaves that sign-in alone: it still finishes', async () => {
    await h.hub.waitForStatus('remote', 'needs-sign-in');
    const url = await startSignIn();
    const asked = h.hub.waitFor((e) => e.type === 'upstream.status' && e.server === 'remote' && e.status === 'needs-sign-in');
    expect((await h.hub.api('upstreams.restart', { id: 'remote' })).ok).toBe(true);
    await asked;
    expect((await remote()).auth?.authorizationUrl).toBe(url);
    const ready = h.hub.waitForStatus('remote', 'ready');
    const page = await browse(url);
    expect(page.text).not.toMatch(/newer/);
    expect(page.status).toBe(200);
    await ready;
  });

  it('a callback with a state Spillway never made is answered, and not logged', async () => {
    const seen: HubEvent[] = [];
    const off = h.hub.hub.events.subscribe((e) => {
      if (e.type === 'log') seen.push(e);
    });
    const port = new URL(h.hub.url).port;
    // What an <img src> on any web site sends: no Origin, Sec-Fetch-Site cross-site. The hub answers after logging.
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`http://127.0.0.1:${port}/oauth/callback?state=x${i}&code=c`, {
        headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-dest': 'image' },
      });
      expect(res.status).toBe(400);
      await res.body?.cancel();
    }
    const bare = await fetch(`http://127.0.0.1:${port}/oauth/callback?error=access_denied`);
    expect(await bare.text()).toMatch(/missing its state/);
    off();
    expect(seen).toEqual([]);
  });
});
