/**
 * Which stored clients Spillway may register again (issue 15): only one the server registered (RFC 7591),
 * never a client ID the user entered nor a Client ID Metadata Document's URL (nothing to register there).
 * And the scopes a sign-in asks for: each once, from all the places that name them.
 */
import { describe, expect, it } from 'vitest';
import { PendingSignIns } from '../../electron/core/oauth/pending-sign-ins.js';
import { unionScopes } from '../../electron/core/oauth/scope-challenge.js';
import { OAUTH_SECRETS, UpstreamOAuthProvider } from '../../electron/core/oauth/upstream-oauth-provider.js';
import { memorySecretStore } from '../support/memory-secret-store.js';

async function provider(stored: object | undefined, clientId?: string) {
  const store = memorySecretStore();
  if (stored) await store.set('remote', OAUTH_SECRETS.client, JSON.stringify(stored));
  return new UpstreamOAuthProvider({
    serverId: 'remote',
    serverUrl: 'https://mcp.example.com/mcp',
    store,
    pending: new PendingSignIns(),
    redirectUrl: () => 'http://127.0.0.1:1/oauth/callback',
    onAuthorizationUrl: () => {},
    ...(clientId ? { clientId } : {}),
  });
}

describe('a stored client registered by the server', () => {
  it.each([
    ['a registration', { client_id: 'c-123', client_secret: 's', redirect_uris: [] }, undefined, true],
    ['an entered client ID', { client_id: 'my-app', issuer: 'https://auth.example.com/' }, 'my-app', false],
    ['a metadata document', { client_id: 'https://spillway.example/client.json', issuer: 'https://auth.example.com/' }, undefined, false],
    ['nothing stored', undefined, undefined, false],
  ])('%s: %s', async (_what, stored, clientId, expected) => {
    expect(await (await provider(stored, clientId)).registeredDynamically()).toBe(expected);
  });
});

describe('the scopes a sign-in asks for', () => {
  it('names each scope once, in the order first met, and none when none is named', () => {
    expect(unionScopes('read', undefined, 'read write', 'admin')).toBe('read write admin');
    expect(unionScopes(undefined, '')).toBeUndefined();
  });
});
