/**
 * REVIEW repro: the server forgot the client between /authorize and the code exchange (invalid_client at
 * the token endpoint). The exchange is refused, but the refused client is kept (invalidateCredentials during
 * an exchange drops only the verifier), and the redirect came back so #unanswered was cleared: the next
 * Sign in names the same forgotten client, and the browser is refused (400), never redirected.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browse } from '../support/oauth-browser.js';
import { startHoldsHub, type HoldsHub } from '../support/oauth-holds.js';

let h: HoldsHub;
beforeAll(async () => {
  h = await startHoldsHub(['--token-lifetime', '600']);
});
afterAll(() => h?.stop());

it('after the exchange refused the client, the next Sign in registers a new one', async () => {
  const { hub } = h;
  await hub.waitForStatus('remote', 'needs-sign-in');
  const firstUrl = await h.signInUrl();
  const asked = await fetch(firstUrl, { redirect: 'manual' });
  await asked.body?.cancel();
  const redirect = asked.headers.get('location')!;
  await h.post('/forget-clients'); // the server restarted between the browser's approval and the exchange
  const page = await fetch(redirect);
  const words = await page.text();
  expect(page.status, words).toBe(502);
  expect(words).toMatch(/refused the client/);
  // The page tells the user to press Sign in again: doing so must work.
  const secondUrl = await h.signInUrl();
  const second = await browse(secondUrl);
  expect(second.status, `second press: ${second.text}`).toBe(200);
  expect(new URL(secondUrl).searchParams.get('client_id')).not.toBe(new URL(firstUrl).searchParams.get('client_id'));
  expect(second.status, second.text).toBe(200);
});
