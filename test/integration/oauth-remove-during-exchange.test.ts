/**
 * Remove while a sign-in's code is being exchanged, and the server added again under the same id: the old
 * exchange, ending, fails (its provider was retired), and its failure must not show on the new server's card.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHoldsHub, type HoldsHub } from '../support/oauth-holds.js';

let h: HoldsHub;
beforeAll(async () => {
  h = await startHoldsHub(['--token-lifetime', '600']);
});
afterAll(() => h?.stop());

it("a removed server's exchange failure is not shown on the server added again", async () => {
  const { hub, server } = h;
  await hub.waitForStatus('remote', 'needs-sign-in');
  const redirect = (await fetch(await h.signInUrl(), { redirect: 'manual' })).headers.get('location')!;
  await h.post('/token-trouble?mode=hold-code');
  const first = fetch(redirect).then(async (r) => ({ status: r.status, text: await r.text() }));
  await h.waitHeld('token', 1);

  expect((await hub.api('upstreams.remove', { id: 'remote' })).ok).toBe(true);
  const asked = hub.waitForStatus('remote', 'needs-sign-in');
  expect((await hub.api('upstreams.add', { id: 'remote', config: { type: 'http', url: server.url, headers: {} } })).ok).toBe(true);
  await asked;
  await h.post('/token-trouble?mode=off');
  const page = await first;
  // The page of the removed server's sign-in still says it failed.
  expect(page.status, page.text).toBe(502);

  const listed = await hub.api<Array<{ id: string; auth?: { state: string; failure?: string } }>>('upstreams.list');
  const auth = listed.value?.find((u) => u.id === 'remote')?.auth;
  expect(auth?.state).toBe('needs-sign-in');
  expect(auth?.failure).toBeUndefined();
});
