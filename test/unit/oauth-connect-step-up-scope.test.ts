/**
 * A step-up met at connect (the initialize request answered 403 insufficient_scope): the tokens go (nothing
 * works without the scope), but the next Sign in still asks for the scopes they held, plus the new one.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, expect, it } from 'vitest';
import { PendingSignIns } from '../../electron/core/oauth/pending-sign-ins.js';
import { UpstreamOAuthProvider } from '../../electron/core/oauth/upstream-oauth-provider.js';
import { createTransportFactory } from '../../electron/core/upstream/transport-factory.js';
import { memorySecretStore } from '../support/memory-secret-store.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

it('the sign-in after a connect-time step-up asks for the scopes held plus the new one', async () => {
  // Every request is answered 403: the token held lacks the scope "write".
  server = createServer((_req, res) => {
    res.writeHead(403, { 'www-authenticate': 'Bearer error="insufficient_scope", scope="write"', 'content-type': 'application/json' });
    res.end('{"error":"insufficient_scope"}');
  });
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  const serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  const store = memorySecretStore();
  const provider = new UpstreamOAuthProvider({
    serverId: 'remote',
    serverUrl,
    store,
    pending: new PendingSignIns(),
    redirectUrl: () => 'http://127.0.0.1:1/oauth/callback',
    onAuthorizationUrl: () => {},
  });
  // Signed in earlier with the scope "read" (stored as a code exchange stores it).
  const tokens = { access_token: 'at', token_type: 'bearer', scope: 'read' };
  await store.set('remote', 'oauth:tokens', JSON.stringify({ serverUrl, tokens, scope: 'read' }));
  const steppedUp: (string | undefined)[] = [];
  const factory = createTransportFactory({
    baseEnv: {},
    platform: process.platform,
    maxMessageBytes: () => 1_000_000,
    authProvider: () => provider,
    onInsufficientScope: async (_id, scope) => {
      steppedUp.push(scope);
      provider.requireScope(scope);
    },
  });
  const { transport } = await factory('remote', { type: 'http', url: serverUrl, headers: {} } as never, () => {});
  await expect(new Client({ name: 't', version: '1' }).connect(transport)).rejects.toThrow();
  expect(steppedUp).toContain('write');
  expect(await provider.tokens()).toBeUndefined();
  expect((await provider.signInScope())?.split(' ').sort()).toEqual(['read', 'write']);
});
