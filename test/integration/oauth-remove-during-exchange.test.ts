/**
 * Remove while a sign-in's code is being exchanged, and the server added again under the same id: the old
 * exchange, ending, fails (its provider was retired), and its failure must not show on the new server's card,
 * nor be logged ("Sign-in failed") under the new server's id, as a forgotten redirect logs nothing.
 */
import { expect, it } from 'vitest';
import type { HubEvent } from '../../shared/events.js';
import { useHoldsHub, type HoldsHub } from '../support/oauth-holds.js';

const holds = useHoldsHub(['--token-lifetime', '600']);

/** Holds a sign-in's code exchange, removes the server and adds it again; resolves to the old sign-in's page. */
async function removeAndAddDuringExchange(h: HoldsHub): Promise<{ page: Promise<{ status: number; text: string }> }> {
  const { hub, server } = h;
  await hub.waitForStatus('remote', 'needs-sign-in');
  const redirect = (await fetch(await h.signInUrl(), { redirect: 'manual' })).headers.get('location')!;
  await h.post('/token-trouble?mode=hold-code');
  const page = fetch(redirect).then(async (r) => ({ status: r.status, text: await r.text() }));
  await h.waitHeld('token', 1);

  expect((await hub.api('upstreams.remove', { id: 'remote' })).ok).toBe(true);
  const asked = hub.waitForStatus('remote', 'needs-sign-in');
  expect((await hub.api('upstreams.add', { id: 'remote', config: { type: 'http', url: server.url, headers: {} } })).ok).toBe(true);
  await asked;
  return { page };
}

it("a removed server's exchange failure is not shown on the server added again", async () => {
  const h = holds();
  const { hub } = h;
  const { page: first } = await removeAndAddDuringExchange(h);
  await h.post('/token-trouble?mode=off');
  const page = await first;
  // The page of the removed server's sign-in still says it failed.
  expect(page.status, page.text).toBe(502);

  const listed = await hub.api<Array<{ id: string; auth?: { state: string; failure?: string } }>>('upstreams.list');
  const auth = listed.value?.find((u) => u.id === 'remote')?.auth;
  expect(auth?.state).toBe('needs-sign-in');
  expect(auth?.failure).toBeUndefined();
});

it("a removed server's exchange failure is not logged under the server added again", async () => {
  const h = holds();
  const { hub } = h;
  const { page: first } = await removeAndAddDuringExchange(h);
  const logged: string[] = [];
  const off = hub.hub.events.subscribe((e: HubEvent) => {
    if (e.type === 'log' && e.server === 'remote') logged.push(e.message);
  });
  await h.post('/token-trouble?mode=off');
  const page = await first;
  off();
  expect(page.status, page.text).toBe(502);
  expect(logged.filter((m) => m.startsWith('Sign-in failed'))).toEqual([]);
});
