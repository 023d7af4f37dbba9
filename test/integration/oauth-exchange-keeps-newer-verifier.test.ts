/**
 * Sign in pressed again while the first sign-in's code is being exchanged (a slow token endpoint: the user
 * thinks nothing happened). The first exchange, ending, must not delete the newer sign-in's PKCE verifier:
 * the newer tab can still finish.
 */
import { expect, it } from 'vitest';
import { browse } from '../support/oauth-browser.js';
import { useHoldsHub } from '../support/oauth-holds.js';

const holds = useHoldsHub(['--token-lifetime', '600']);

it("the newer sign-in started during the older one's code exchange can still finish", async () => {
  const h = holds();
  const { hub, server } = h;
  await hub.waitForStatus('remote', 'needs-sign-in');
  const redirect = (await fetch(await h.signInUrl(), { redirect: 'manual' })).headers.get('location')!;
  await h.post('/token-trouble?mode=hold-code');
  const first = fetch(redirect).then(async (r) => ({ status: r.status, text: await r.text() }));
  await h.waitHeld('token', 1);

  const newer = await h.signInUrl(); // pressed again meanwhile
  const ready = hub.waitForStatus('remote', 'ready');
  await h.post('/token-trouble?mode=off');
  const firstPage = await first;
  expect(firstPage.status, firstPage.text).toBe(200);
  await ready;

  const page = await browse(newer);
  expect(page.status, page.text).toBe(200);
  expect((await server.stats()).codeGrants).toBe(2);
});
