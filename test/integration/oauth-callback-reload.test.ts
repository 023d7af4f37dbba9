/**
 * Reloading the "Signed in" tab (or a browser restoring its tabs) sends the used redirect again: the page
 * says the sign-in is already finished, not that it failed and Sign in must be pressed again.
 */
import { afterEach, expect, it } from 'vitest';
import { OAuthSignIns } from '../../electron/core/oauth/oauth-sign-ins.js';
import { startFakeAuthServer, type FakeAuthServer } from '../support/fake-auth-server.js';
import { memorySecretStore } from '../support/memory-secret-store.js';
import { startOAuthHub } from '../support/oauth-flow.js';

const started: FakeAuthServer[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.stop()));
});

it('a reload of the callback after a sign-in that worked says it is already finished', async () => {
  const server = await startFakeAuthServer();
  started.push(server);
  const oauth = new OAuthSignIns({ store: memorySecretStore(), redirectUrl: () => 'http://127.0.0.1:1/oauth/callback', onNeedsSignIn: () => {} });
  const res = await fetch(await oauth.signIn('remote', server.mcpUrl), { redirect: 'manual' });
  const query = new URL(res.headers.get('location')!).searchParams;
  expect(await oauth.finish(query)).toEqual({ ok: true, serverId: 'remote' });
  const tokenRequests = server.seen.filter((r) => r.path === '/token').length;
  const again = await oauth.finish(query);
  expect(again).toMatchObject({ ok: true, serverId: 'remote', already: true });
  expect(server.seen.filter((r) => r.path === '/token')).toHaveLength(tokenRequests);
  expect(oauth.lastFailure('remote')).toBeUndefined();
});

it('the reloaded page of a hub says the sign-in is finished, and logs no failure', async () => {
  const h = await startOAuthHub(['--token-lifetime', '600']);
  try {
    await h.hub.waitForStatus('remote', 'needs-sign-in');
    const answer = await h.hub.api<{ authorizationUrl: string }>('upstreams.signIn', { id: 'remote' });
    const asked = await fetch(answer.value!.authorizationUrl, { redirect: 'manual' });
    const redirect = asked.headers.get('location')!;
    const ready = h.hub.waitForStatus('remote', 'ready');
    expect((await fetch(redirect)).status).toBe(200);
    await ready;
    const failures: string[] = [];
    const off = h.hub.hub.events.subscribe((e) => {
      if (e.type === 'log' && e.level === 'warn') failures.push(e.message);
    });
    const reload = await fetch(redirect);
    off();
    expect(reload.status).toBe(200);
    expect(await reload.text()).toContain('This sign-in is already finished; you can close this tab.');
    expect(failures).toEqual([]);
  } finally {
    await h.stop();
  }
});
