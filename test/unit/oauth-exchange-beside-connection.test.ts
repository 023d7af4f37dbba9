/**
 * A connection's own auth (a 401 meanwhile) while the user's sign-in has its code exchanged: the callback
 * took the sign-in's state (it no longer waits in the browser), and the exchange has yet to read the
 * client and the PKCE verifier. The connection registers no client, makes no state and stores no verifier
 * then, so the code is exchanged with the user's. The calls come in the order the SDK's auth makes them.
 */
import { describe, expect, it } from 'vitest';
import type { PendingSignIns } from '../../electron/core/oauth/pending-sign-ins.js';
import type { UpstreamOAuthProvider } from '../../electron/core/oauth/upstream-oauth-provider.js';
import { makeOAuthProvider } from '../support/oauth-provider-setup.js';

const WAITS = /waits in the browser/;

/** The user's sign-in up to its redirect: client, state and verifier stored, then the callback takes the state. */
async function redirectedUserSignIn(provider: UpstreamOAuthProvider, pending: PendingSignIns): Promise<string> {
  const state = await provider.signInByUser(async () => {
    await provider.saveClientInformation({ client_id: 'users', redirect_uris: [provider.redirectUrl] });
    const made = await provider.state();
    await provider.saveCodeVerifier('verifier-of-the-user');
    return made;
  });
  expect('serverId' in pending.take(state)).toBe(true);
  expect(pending.waitingForUser('remote')).toBe(false);
  return state;
}

/** The code exchange, held (as at discovery) until `release`, then reading the client and verifier as the SDK does. */
function heldExchange(provider: UpstreamOAuthProvider) {
  let release!: () => void;
  let started!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const running = new Promise<void>((resolve) => (started = resolve));
  const done = provider.exchangeCode(async () => {
    started();
    await held;
    return { client: (await provider.clientInformation())?.client_id, verifier: await provider.codeVerifier() };
  });
  return { running, release, done };
}

describe("a connection's auth beside a sign-in's code exchange", () => {
  it("registers no client, makes no state and stores no verifier until the exchange read the user's", async () => {
    const { provider, pending } = makeOAuthProvider();
    const state = await redirectedUserSignIn(provider, pending);
    const exchange = heldExchange(provider);
    await exchange.running;
    // The connection had read no client before, so it registers one, makes a state and stores its verifier.
    await expect(provider.saveClientInformation({ client_id: 'connections', redirect_uris: [provider.redirectUrl] })).rejects.toThrow(WAITS);
    await expect(provider.state()).rejects.toThrow(WAITS);
    await expect(provider.saveCodeVerifier('verifier-of-the-connection')).rejects.toThrow(WAITS);
    exchange.release();
    expect(await exchange.done).toEqual({ client: 'users', verifier: 'verifier-of-the-user' });
    pending.finished(state);

    // The exchange over, the connection's auth stores as before.
    await provider.saveClientInformation({ client_id: 'connections' });
    expect((await provider.clientInformation())?.client_id).toBe('connections');
    await provider.saveCodeVerifier('verifier-of-the-connection');
    expect(await provider.codeVerifier()).toBe('verifier-of-the-connection');
  });

  it("stops a connection's auth without a client while the exchange runs, instead of registering one", async () => {
    const { provider, pending } = makeOAuthProvider();
    await redirectedUserSignIn(provider, pending);
    const exchange = heldExchange(provider);
    await exchange.running;
    await provider.invalidateCredentials('client');
    await expect(provider.clientInformation()).rejects.toThrow(WAITS);
    await expect(provider.saveClientInformation({ client_id: 'connections' })).rejects.toThrow(WAITS);
    exchange.release();
    // The exchange's own reads are not refused (its client was dropped: it finds none, and may register).
    expect(await exchange.done).toEqual({ client: undefined, verifier: 'verifier-of-the-user' });
  });

  /** An exchange the server refuses as the SDK's auth meets it: invalid_grant, then invalid_client, before it retries with the same code. */
  function refusedExchange(provider: UpstreamOAuthProvider) {
    return provider.exchangeCode(async () => {
      await provider.clientInformation();
      await provider.invalidateCredentials('tokens');
      await provider.invalidateCredentials('all');
      return provider.codeVerifier();
    });
  }

  it('a refused exchange drops its verifier and the client it used, not the tokens in use', async () => {
    const { provider, pending } = makeOAuthProvider();
    await provider.saveTokens({ access_token: 'in-use', token_type: 'Bearer', refresh_token: 'r1' });
    await redirectedUserSignIn(provider, pending);
    await expect(refusedExchange(provider)).rejects.toThrow(/refused the/);
    expect((await provider.tokens())?.access_token).toBe('in-use');
    // The server forgot that client: the next Sign in registers anew.
    expect(await provider.clientInformation()).toBeUndefined();
    await expect(provider.codeVerifier()).rejects.toThrow(/code verifier is missing/);
  });

  it("a step-up's refused exchange drops only its verifier: the tokens in use and the client stay", async () => {
    const { provider, pending } = makeOAuthProvider();
    await provider.saveTokens({ access_token: 'in-use', token_type: 'Bearer', refresh_token: 'r1' });
    provider.requireScope('write');
    await redirectedUserSignIn(provider, pending);
    await expect(refusedExchange(provider)).rejects.toThrow(/refused the/);
    expect((await provider.tokens())?.access_token).toBe('in-use');
    expect((await provider.clientInformation())?.client_id).toBe('users');
    await expect(provider.codeVerifier()).rejects.toThrow(/code verifier is missing/);
  });

  it('a refused exchange leaves the verifier of a newer sign-in stored meanwhile', async () => {
    const { provider, pending } = makeOAuthProvider();
    await redirectedUserSignIn(provider, pending);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const refused = provider.exchangeCode(async () => {
      await held;
      // The server refused the code (invalid_grant): the SDK drops the tokens, then retries with the same code.
      await provider.invalidateCredentials('tokens');
      return provider.codeVerifier();
    });
    // The user pressed Sign in again while the code was exchanged.
    await provider.signInByUser(async () => {
      await provider.state();
      await provider.saveCodeVerifier('verifier-of-the-newer-sign-in');
    });
    release();
    await expect(refused).rejects.toThrow(/refused the authorization code/);
    expect(await provider.codeVerifier()).toBe('verifier-of-the-newer-sign-in');
  });
});
