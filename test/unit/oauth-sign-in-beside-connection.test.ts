/**
 * A connection's own auth (a 401 after a sign-out, say) running beside the sign-in the user started: the
 * connection registers no client and stores no verifier, so the user's authorization URL, its client and
 * its PKCE verifier stay the ones the code is exchanged with. The calls come in the order the SDK's auth
 * makes them (clientInformation, saveClientInformation, state, saveCodeVerifier).
 */
import { describe, expect, it } from 'vitest';
import type { UpstreamOAuthProvider } from '../../electron/core/oauth/upstream-oauth-provider.js';
import { makeOAuthProvider } from '../support/oauth-provider-setup.js';

const WAITS = /waits in the browser/;

/** The user's sign-in, held after it stored its client, state and verifier until `release` is called. */
function heldUserSignIn(provider: UpstreamOAuthProvider) {
  let release!: () => void;
  let reached!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const stored = new Promise<void>((resolve) => (reached = resolve));
  const done = provider.signInByUser(async () => {
    expect(await provider.clientInformation()).toBeUndefined();
    await provider.saveClientInformation({ client_id: 'users', redirect_uris: [provider.redirectUrl] });
    const state = await provider.state();
    await provider.saveCodeVerifier('verifier-of-the-user');
    reached();
    await held;
    return state;
  });
  return { stored, release, done };
}

describe("a connection's auth beside the user's sign-in", () => {
  it("does not replace the user's client or verifier while the sign-in runs", async () => {
    const { provider } = makeOAuthProvider();
    // The connection read no client before the user pressed Sign in, so it registered one meanwhile.
    expect(await provider.clientInformation()).toBeUndefined();
    const user = heldUserSignIn(provider);
    await user.stored;
    await expect(provider.saveClientInformation({ client_id: 'connections', redirect_uris: [provider.redirectUrl] })).rejects.toThrow(WAITS);
    await expect(provider.state()).rejects.toThrow(WAITS);
    await expect(provider.saveCodeVerifier('verifier-of-the-connection')).rejects.toThrow(WAITS);
    user.release();
    await user.done;
    expect((await provider.clientInformation())?.client_id).toBe('users');
    expect(await provider.codeVerifier()).toBe('verifier-of-the-user');
  });

  it('registers nothing while the sign-in waits in the browser, and works as before once it is over', async () => {
    const { provider, pending } = makeOAuthProvider();
    const user = heldUserSignIn(provider);
    user.release();
    const state = await user.done;
    expect(pending.waitingForUser('remote')).toBe(true);
    await provider.invalidateCredentials('client');
    // No client stored (a refusal dropped it): the connection stops instead of registering its own.
    await expect(provider.clientInformation()).rejects.toThrow(WAITS);
    await expect(provider.saveClientInformation({ client_id: 'connections' })).rejects.toThrow(WAITS);
    pending.take(state);
    pending.finished(state);
    expect(await provider.clientInformation()).toBeUndefined();
    await provider.saveClientInformation({ client_id: 'connections' });
    expect((await provider.clientInformation())?.client_id).toBe('connections');
  });

  it("lets the user's own sign-in read and store as before while a connection waits", async () => {
    const { provider } = makeOAuthProvider();
    const user = heldUserSignIn(provider);
    user.release();
    await user.done;
    // A second Sign in replaces the first: it is the user's, so it stores its own client and verifier.
    await provider.signInByUser(async () => {
      await provider.invalidateCredentials('client');
      expect(await provider.clientInformation()).toBeUndefined();
      await provider.saveClientInformation({ client_id: 'users-again' });
      await provider.state();
      await provider.saveCodeVerifier('second-verifier');
    });
    expect((await provider.clientInformation())?.client_id).toBe('users-again');
    expect(await provider.codeVerifier()).toBe('second-verifier');
  });
});
