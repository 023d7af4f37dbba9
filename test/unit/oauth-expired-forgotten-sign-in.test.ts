/**
 * REVIEW repro: a removed (or signed-out) server's waiting sign-in is kept refused as 'forgotten', but take()
 * checks expiry first: its redirect, coming back after the 10-minute limit (entries stay a further 10), is
 * told 'expired' and its failure is set on the server's card: the re-added namesake (or the signed-out server)
 * shows "The sign-in took too long and expired".
 */
import { expect, it } from 'vitest';
import { OAuthSignIns } from '../../electron/core/oauth/oauth-sign-ins.js';
import { PendingSignIns } from '../../electron/core/oauth/pending-sign-ins.js';
import { memorySecretStore } from '../support/memory-secret-store.js';

it("a removed server's late redirect sets no failure on its re-added namesake's card", async () => {
  let now = 1_000_000;
  const pending = new PendingSignIns(10 * 60_000, () => now);
  const signIns = new OAuthSignIns({
    store: memorySecretStore(),
    redirectUrl: () => 'http://127.0.0.1:4242/oauth/callback',
    onNeedsSignIn: () => undefined,
    pending,
  });
  const state = pending.create('remote', true); // the user's sign-in waits in the browser
  await signIns.forget('remote'); // Remove; then the user adds a server named remote again
  now += 11 * 60_000; // the old tab is finished later
  const outcome = await signIns.finish(new URLSearchParams({ state, code: 'c' }));
  expect(outcome.ok).toBe(false);
  expect(signIns.lastFailure('remote')).toBeUndefined();
  expect(!outcome.ok && outcome.message).toMatch(/signed out or removed/);
});
