/**
 * A refresh the upstream's transport makes by itself, on a 401, against a token endpoint that never
 * answers (audit s13, oauth 3): it gives up after the sign-in server's time limit (shortened here), as the
 * sign-ins started from Spillway do, instead of holding the request for the whole tool-call timeout; and
 * it fails as "not reachable" (retried later), without asking for a sign-in or dropping the refresh token.
 * The real transport and provider, against the in-process fake authorization server.
 */
import { afterEach, expect, it } from 'vitest';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { ServerConfigSchema } from '../../shared/config.js';
import { OAuthSignIns } from '../../electron/core/oauth/oauth-sign-ins.js';
import { createTransportFactory } from '../../electron/core/upstream/transport-factory.js';
import { startFakeAuthServer, type FakeAuthServer } from '../support/fake-auth-server.js';
import { memorySecretStore } from '../support/memory-secret-store.js';

let server: FakeAuthServer | undefined;
let transport: Transport | undefined;
afterEach(async () => {
  await transport?.close();
  await server?.stop();
});

it.each(['http', 'sse'] as const)('over %s, a hanging token endpoint fails the request after the time limit, as not reachable', async (type) => {
  server = await startFakeAuthServer();
  const fake = server;
  const signInsAsked: string[] = [];
  const unreachable: string[] = [];
  const oauth = new OAuthSignIns({
    store: memorySecretStore(),
    redirectUrl: () => 'http://127.0.0.1:1/oauth/callback',
    onNeedsSignIn: (id) => signInsAsked.push(id),
    onAuthServerUnreachable: (_id, message) => unreachable.push(message),
    timeoutMs: 300,
  });
  // Signed in as a browser would: the authorization URL, its redirect, the callback.
  const res = await fetch(await oauth.signIn('remote', fake.mcpUrl), { redirect: 'manual' });
  expect(await oauth.finish(new URL(res.headers.get('location')!).searchParams)).toEqual({ ok: true, serverId: 'remote' });
  const provider = oauth.provider('remote')!;
  const signedIn = await provider.tokens();
  expect(signedIn?.refresh_token).toBeTruthy();

  signInsAsked.length = 0; // the sign-in above asked once, as every sign-in does
  fake.mode.hang = ['/token'];
  const factory = createTransportFactory({
    baseEnv: process.env,
    platform: process.platform,
    maxMessageBytes: () => 1e8,
    authProvider: (id, url) => oauth.providerFor(id, url),
  });
  // The fake's MCP endpoint answers 401 to every token: the transport refreshes.
  transport = (await factory('remote', ServerConfigSchema.parse({ type, url: fake.mcpUrl, headers: {} }), () => undefined)).transport;
  const started = Date.now();
  const initialize = {
    jsonrpc: '2.0' as const,
    id: 1,
    method: 'initialize',
    params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 't', version: '1' } },
  };
  const failure = type === 'http' ? (await transport.start(), transport.send(initialize)) : transport.start();
  await expect(failure).rejects.toThrow(/The sign-in server of "remote" \(127\.0\.0\.1:\d+\) is not reachable \(it did not answer within 1 second\)/);
  expect(Date.now() - started).toBeLessThan(3000);
  expect(fake.seen.filter((r) => r.path === '/token' && r.body.includes('grant_type=refresh_token'))).toHaveLength(1);
  expect(signInsAsked).toEqual([]);
  expect(unreachable).toHaveLength(1);
  expect(await provider.tokens()).toEqual(signedIn);
});
