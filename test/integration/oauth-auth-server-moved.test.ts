/**
 * A server whose resource metadata names a new authorization server while Spillway runs: the user's next
 * Sign in reads the resource metadata again and goes to the new one (not to the one found at the start),
 * and so does a connection's next try after its refresh found the old one unreachable.
 */
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { expect, it } from 'vitest';
import { fakeAuthServer, signIns, signInThrough } from '../support/fake-auth-sign-ins.js';
import { memorySecretStore } from '../support/memory-secret-store.js';

/** A server signed in at its authorization server, and another authorization server it may move to. */
async function signedInThenMoved(timeoutMs: number) {
  const server = await fakeAuthServer();
  const moved = await fakeAuthServer();
  const oauth = signIns(memorySecretStore(), timeoutMs);
  await signInThrough(oauth, server);
  return { server, moved, oauth };
}

it('Sign in after the resource names a new authorization server goes to the new one', async () => {
  const { server, moved, oauth } = await signedInThenMoved(2000);

  server.mode.authServer = moved.base;
  const second = new URL(await oauth.signIn('remote', server.mcpUrl));
  expect(`${second.origin}/`).toBe(moved.base);
  // Registered anew there: the client the old server registered is not sent to the new one.
  expect(moved.seen.some((r) => r.method === 'POST' && r.path === '/register')).toBe(true);
});

it('a refresh that finds the sign-in server unreachable reads the resource metadata again on the next try', async () => {
  const { server, moved, oauth } = await signedInThenMoved(300);

  // The old sign-in server stops answering; the resource now names another one.
  server.mode.hang = ['/token'];
  server.mode.authServer = moved.base;
  const provider = oauth.provider('remote')!;
  const fetchFn = provider.authRequests((input, init) => fetch(input, init));
  await expect(auth(provider, { serverUrl: server.mcpUrl, fetchFn })).rejects.toThrow(/not reachable/);
  // The connection's next try finds the new server: it asks for a sign-in there (the old server's refresh
  // token is not sent to it), rather than waiting for the old one again.
  expect(await auth(provider, { serverUrl: server.mcpUrl, fetchFn })).toBe('REDIRECT');
  expect(`${new URL(provider.authorizationUrl!).origin}/`).toBe(moved.base);
  expect(moved.seen.some((r) => r.path === '/token')).toBe(false);
});
