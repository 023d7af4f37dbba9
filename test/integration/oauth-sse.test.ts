/**
 * Sign-in of a legacy SSE upstream (issue 15) against the OAuth fixture's /sse endpoint. The SSE GET must
 * carry the bearer token (and Accept: text/event-stream): without it the server answers 401, the SDK
 * refreshes the token and tries again, forever — the server never connects and the authorization server
 * gets hundreds of refresh grants a second (each one a keychain write).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../support/hub-harness.js';
import { signIn, startOAuthFixture, type OAuthFixture } from '../support/oauth-flow.js';

let server: OAuthFixture;
let hub: TestHub;

beforeAll(async () => {
  server = await startOAuthFixture('--token-lifetime', '300');
  const url = server.url.replace(/\/mcp$/, '/sse');
  hub = await startTestHub({ version: 1, servers: { remote: { type: 'sse', url, headers: { 'X-Team': 'blue' } } } });
});
afterAll(async () => {
  await hub?.stop();
  await server?.stop();
});

it('signs in, connects, and lists the tools, with one code grant and no refresh storm', async () => {
  await hub.waitForStatus('remote', 'needs-sign-in');
  await signIn(hub);
  const client = await hub.connect();
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toContain('remote__whoami');
  const stats = await server.stats();
  expect(stats.codeGrants).toBe(1);
  expect(stats.refreshGrants).toBe(0);
  expect(stats.sseGets).toBe(1);
});

it('gives up with a plain message when the server refuses even a freshly refreshed token, instead of refreshing forever', async () => {
  await (await fetch(new URL('/refuse-sse-tokens', server.url), { method: 'POST' })).body?.cancel();
  const before = await server.stats();
  const failed = hub.waitFor(
    (e) => e.type === 'upstream.status' && e.server === 'remote' && JSON.stringify(e).includes('refused its sign-in even after Spillway renewed it'),
    'the refusal reported',
  );
  await hub.api('upstreams.restart', { id: 'remote' });
  await failed;
  const after = await server.stats();
  // One refusal with the stored token, one refresh, one refusal of the refreshed token: then it stops.
  expect(after.refreshGrants - before.refreshGrants).toBeLessThanOrEqual(1);
  expect(after.sseRefusals).toBeLessThanOrEqual(2);
});
