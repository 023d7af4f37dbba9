/**
 * The hub's OAuth sign-ins against fake authorization servers (fake-auth-server.ts), in process: servers
 * started for a test and stopped after it (this module registers the afterEach), an OAuthSignIns on a
 * memory store, and a sign-in carried through as a browser would.
 */
import { afterEach, expect } from 'vitest';
import { OAuthSignIns } from '../../electron/core/oauth/oauth-sign-ins.js';
import { startFakeAuthServer, type FakeAuthServer } from './fake-auth-server.js';
import { memorySecretStore } from './memory-secret-store.js';

const started: FakeAuthServer[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.stop()));
});

/** A fake authorization server, stopped after the current test. */
export async function fakeAuthServer(mode: Parameters<typeof startFakeAuthServer>[0] = {}): Promise<FakeAuthServer> {
  const server = await startFakeAuthServer(mode);
  started.push(server);
  return server;
}

/** Sign-ins kept in `store`, each request to an authorization server given up after `timeoutMs`. */
export function signIns(store = memorySecretStore(), timeoutMs = 300): OAuthSignIns {
  return new OAuthSignIns({ store, redirectUrl: () => 'http://127.0.0.1:1/oauth/callback', onNeedsSignIn: () => {}, timeoutMs });
}

/** Signs `remote` in as a browser would: the authorization URL, its redirect, the callback. */
export async function signInThrough(oauth: OAuthSignIns, server: FakeAuthServer): Promise<void> {
  const res = await fetch(await oauth.signIn('remote', server.mcpUrl), { redirect: 'manual' });
  const callback = new URL(res.headers.get('location')!);
  expect(await oauth.finish(callback.searchParams)).toEqual({ ok: true, serverId: 'remote' });
}
