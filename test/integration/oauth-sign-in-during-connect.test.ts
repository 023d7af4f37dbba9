/**
 * A connection's own 401 sign-in (Restart, or an edit, while the user's Sign in still makes its URL) is
 * not taken for the user's: the page Sign in opened still signs in, and is not refused as replaced by a
 * "newer browser tab" that was never opened.
 */
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { afterEach, expect, it } from 'vitest';
import { OAuthSignIns } from '../../electron/core/oauth/oauth-sign-ins.js';
import { OAUTH_SECRETS } from '../../electron/core/oauth/upstream-oauth-provider.js';
import { startFakeAuthServer, type FakeAuthServer } from '../support/fake-auth-server.js';
import { memorySecretStore } from '../support/memory-secret-store.js';

const started: FakeAuthServer[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.stop()));
});

it('the page Sign in opened still signs in when a connection meets its 401 while that URL is being made', async () => {
  const server = await startFakeAuthServer();
  started.push(server);
  const store = memorySecretStore();
  const oauth = new OAuthSignIns({ store, redirectUrl: () => 'http://127.0.0.1:1/oauth/callback', onNeedsSignIn: () => {}, timeoutMs: 2000 });
  // The upstream connected once (provider made, discovery done, client registered) and needs a sign-in.
  const provider = oauth.providerFor('remote', server.mcpUrl);
  await auth(provider, { serverUrl: server.mcpUrl });
  // The connection's next 401, made ready outside the user's Sign in (as the transport's request is) and
  // let go while the user's verifier is being written.
  let letGo = () => {};
  const connection = new Promise<void>((resolve) => (letGo = resolve));
  const background = connection.then(() => auth(provider, { serverUrl: server.mcpUrl }).catch((e: Error) => `threw: ${e.message}`));
  const set = store.set;
  let released = false;
  store.set = async (id, name, value) => {
    if (name === OAUTH_SECRETS.verifier && !released) {
      released = true;
      letGo();
      // The verifier is written only once the connection's try has ended.
      await background;
    }
    return set(id, name, value);
  };
  const url = await oauth.signIn('remote', server.mcpUrl);
  // The connection leaves the user's sign-in alone: it only says a sign-in waits in the browser.
  expect(await background).toMatch(/waits in the browser/);
  const res = await fetch(url, { redirect: 'manual' });
  expect(await oauth.finish(new URL(res.headers.get('location')!).searchParams)).toEqual({ ok: true, serverId: 'remote' });
});
