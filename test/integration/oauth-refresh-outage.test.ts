/**
 * A sign-in server that is briefly down while an access token expires (audit s13, oauth 2): the refresh
 * fails with a 503, which is no refusal of the sign-in. The server shows an error saying the sign-in
 * server is not reachable and reconnects by itself once it answers; it never asks for a sign-in, and its
 * refresh token is kept (no new authorization). A refused refresh (invalid_grant) still asks for one
 * (oauth-sign-in.test.ts).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { HubEvent } from '../../shared/events.js';
import { signIn, startOAuthHub, type OAuthHub } from '../support/oauth-flow.js';

let h: OAuthHub;
const post = async (path: string) => (await fetch(new URL(path, h.server.url), { method: 'POST' })).body?.cancel();

beforeAll(async () => {
  h = await startOAuthHub(['--token-lifetime', '600']);
});
afterAll(async () => h?.stop());

it('a 503 from the token endpoint during a refresh is an error with retries, not a sign-in; once it answers the server is ready', async () => {
  await h.hub.waitForStatus('remote', 'needs-sign-in');
  await signIn(h.hub);
  const authorizations = (await h.server.stats()).authorizations;
  const client = await h.hub.connect();
  const name = (await client.listTools()).tools.find((t) => t.name.endsWith('whoami'))!.name;
  const statuses: Extract<HubEvent, { type: 'upstream.status' }>[] = [];
  const off = h.hub.hub.events.subscribe((e) => {
    if (e.type === 'upstream.status' && e.server === 'remote') statuses.push(e);
  });

  await post('/token-trouble?mode=down');
  await post('/expire-access-tokens');
  const failed = await client.callTool({ name, arguments: {} });
  expect(failed.isError).toBe(true);
  expect(JSON.stringify(failed.content)).toMatch(/The sign-in server of \\"remote\\" \(127\.0\.0\.1:\d+\) is not reachable \(it answered HTTP 503\)/);
  await h.hub.waitForStatus('remote', 'error');
  expect(h.hub.hub.pool.get('remote')?.error).toMatch(/is not reachable .*You stay signed in.*\(Spillway tries again/);
  const listed = await h.hub.api<Array<{ id: string; auth?: { state: string } }>>('upstreams.list');
  expect(listed.value?.find((u) => u.id === 'remote')?.auth?.state).toBe('signed-in');

  const ready = h.hub.waitForStatus('remote', 'ready');
  await post('/token-trouble?mode=off');
  await ready;
  off();
  expect(statuses.map((e) => e.status)).not.toContain('needs-sign-in');
  expect((await h.server.stats()).authorizations).toBe(authorizations);
  const after = await client.callTool({ name, arguments: {} });
  expect(after.isError, JSON.stringify(after.content)).toBeFalsy();
  await client.close();
});
