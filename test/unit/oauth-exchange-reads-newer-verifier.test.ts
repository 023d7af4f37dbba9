/**
 * REVIEW repro: a sign-in's code exchange whose state was taken, while a newer sign-in the user started
 * stores its verifier before the exchange's SDK auth reads the verifier (after its discovery). The exchange
 * sends the newer sign-in's verifier: PKCE fails at the server, and the page blames an expired code.
 */
import { expect, it } from 'vitest';
import { makeOAuthProvider } from '../support/oauth-provider-setup.js';

it("the code exchange sends the verifier of its own sign-in, not a newer one's", async () => {
  const { provider, pending } = makeOAuthProvider();
  const userSignIn = (verifier: string) =>
    provider.signInByUser(async () => {
      await provider.saveClientInformation({ client_id: 'c', redirect_uris: [provider.redirectUrl] });
      const state = await provider.state();
      await provider.saveCodeVerifier(verifier);
      return state;
    });
  const first = await userSignIn('verifier-one');
  expect('serverId' in pending.take(first)).toBe(true); // its redirect came back: the exchange begins
  const sent = await provider.exchangeCode(async () => {
    // The SDK's discovery is under way here; the user's newer sign-in stores its verifier meanwhile.
    await userSignIn('verifier-two');
    return provider.codeVerifier(); // what the SDK posts with the code
  });
  expect(sent).toBe('verifier-one');
});
