/**
 * The authorization server forgot the client Spillway registered (restarted, or expires registrations)
 * while the server needs a sign-in: its /authorize refuses the client in the browser and never redirects
 * back. Pressing Sign in again, the previous user sign-in never having come back, registers anew.
 */
import { expect, it } from 'vitest';
import { browse } from '../support/oauth-browser.js';
import { useHoldsHub } from '../support/oauth-holds.js';

const holds = useHoldsHub(['--token-lifetime', '600']);

it('Sign in works again after the server forgot the client it registered', async () => {
  const h = holds();
  const { hub, server } = h;
  await hub.waitForStatus('remote', 'needs-sign-in'); // the connection registered a client
  await h.post('/forget-clients');
  const firstUrl = await h.signInUrl();
  const first = await browse(firstUrl);
  // The server refuses the unknown client in the browser: no redirect comes back.
  expect(first.status).toBe(400);
  expect((await server.stats()).authorizations).toBe(0);
  const ready = hub.waitForStatus('remote', 'ready');
  const secondUrl = await h.signInUrl();
  expect(new URL(secondUrl).searchParams.get('client_id')).not.toBe(new URL(firstUrl).searchParams.get('client_id'));
  const second = await browse(secondUrl);
  expect(second.status, second.text).toBe(200);
  await ready;
  expect((await server.stats()).registrations).toBe(2);
});
