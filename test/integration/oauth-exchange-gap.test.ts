/**
 * The callback's first steps, before the code exchange reaches the SDK (the server's address read from the
 * secret store): the sign-in's state is taken by then, so it no longer waits in the browser. A connection's
 * own auth meanwhile (a 401) must still make no state and store no verifier, or the code is exchanged with
 * the connection's verifier and refused. The real OAuth fixture; the address lookup is the hold.
 */
import { afterEach, expect, it } from 'vitest';
import { OAuthSignIns } from '../../electron/core/oauth/oauth-sign-ins.js';
import { memorySecretStore } from '../support/memory-secret-store.js';
import { startOAuthFixture, type OAuthFixture } from '../support/oauth-flow.js';

let server: OAuthFixture | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

it("a connection's auth while the callback reads the server's address does not replace the sign-in's verifier", async () => {
  server = await startOAuthFixture('--token-lifetime', '300');
  const url = server.url;
  let reading!: () => void;
  let release!: () => void;
  const addressRead = new Promise<void>((resolve) => (reading = resolve));
  const held = new Promise<void>((resolve) => (release = resolve));
  let holdNext = false;
  const oauth = new OAuthSignIns({
    store: memorySecretStore(),
    redirectUrl: () => 'http://127.0.0.1:1/oauth/callback',
    onNeedsSignIn: () => undefined,
    address: async () => {
      if (holdNext) {
        holdNext = false;
        reading();
        await held;
      }
      return url;
    },
  });
  const authorizationUrl = await oauth.signIn('remote', url);
  // The browser's step: the fixture approves at once and redirects to the callback with the code.
  const approved = await fetch(authorizationUrl, { redirect: 'manual' });
  const callback = new URL(approved.headers.get('location')!);
  expect(callback.searchParams.get('code')).toBeTruthy();

  holdNext = true;
  const finished = oauth.finish(callback.searchParams);
  await addressRead;
  // The connection's auth, as the SDK runs it after a 401 with no tokens: a state, then its verifier.
  const provider = oauth.provider('remote')!;
  await expect(provider.state()).rejects.toThrow(/waits in the browser/);
  await expect(provider.saveCodeVerifier('verifier-of-the-connection')).rejects.toThrow(/waits in the browser/);
  release();
  const outcome = await finished;
  expect(outcome).toMatchObject({ ok: true, serverId: 'remote' });
  expect((await server.stats()).codeGrants).toBe(1);
});
