/**
 * The callback page reloaded (or requested twice by the browser) while its code exchange is under way: the
 * second page waits for that exchange and shows its outcome, not that the sign-in failed.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHoldsHub, type HoldsHub } from '../support/oauth-holds.js';

let h: HoldsHub;
beforeAll(async () => {
  h = await startHoldsHub(['--token-lifetime', '600']);
});
afterAll(() => h?.stop());

const load = async (url: string) => {
  const r = await fetch(url);
  return { status: r.status, text: await r.text() };
};

it('a reload while the code is exchanged shows that the sign-in finished', async () => {
  const { hub, server } = h;
  await hub.waitForStatus('remote', 'needs-sign-in');
  const redirect = (await fetch(await h.signInUrl(), { redirect: 'manual' })).headers.get('location')!;
  await h.post('/token-trouble?mode=hold-code');
  const ready = hub.waitForStatus('remote', 'ready');
  const first = load(redirect);
  await h.waitHeld('token', 1);
  const reload = load(redirect);
  await h.post('/token-trouble?mode=off');
  const [firstPage, reloadPage] = await Promise.all([first, reload]);
  expect(firstPage.status, firstPage.text).toBe(200);
  await ready;
  expect(reloadPage.status, reloadPage.text).toBe(200);
  expect(reloadPage.text).toContain('Signed in');
  expect((await server.stats()).codeGrants).toBe(1);
});

it('a reload while the code is exchanged shows the failure of that exchange', async () => {
  const { hub } = h;
  expect((await hub.api('upstreams.signOut', { id: 'remote' })).ok).toBe(true);
  await hub.waitForStatus('remote', 'needs-sign-in');
  const redirect = (await fetch(await h.signInUrl(), { redirect: 'manual' })).headers.get('location')!;
  await h.post('/token-trouble?mode=hold-code');
  const first = load(redirect);
  await h.waitHeld('token', 2);
  const reload = load(redirect);
  // The server forgets its codes: the held exchange is refused.
  await h.post('/forget-codes');
  await h.post('/token-trouble?mode=off');
  const [firstPage, reloadPage] = await Promise.all([first, reload]);
  expect(firstPage.status, firstPage.text).toBe(502);
  expect(reloadPage.status).toBe(502);
  expect(reloadPage.text).toBe(firstPage.text);
});
