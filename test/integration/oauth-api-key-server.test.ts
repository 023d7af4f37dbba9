/**
 * A remote server that answers 401 but offers no OAuth sign-in (no resource or authorization server
 * metadata; an API-key server): its status and Sign in say in plain words that it refused Spillway and
 * may need an API key under Edit → Headers, and its retries do not post a client registration each time.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../support/hub-harness.js';
import { remoteConfig } from '../support/oauth-flow.js';

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

/** A server that answers 401 to everything but its (missing) metadata; it counts what was posted where. */
async function apiKeyServer(headers: Record<string, string>, body: string): Promise<{ url: string; posts: string[] }> {
  const posts: string[] = [];
  const server = createServer((req, res) => {
    if (req.method === 'POST') posts.push(req.url ?? '');
    res.writeHead(req.url?.includes('.well-known') ? 404 : 401, { 'content-type': 'application/json', ...headers });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, posts };
}

const PLAIN = /refused Spillway \(HTTP 401\) and offers no sign-in Spillway can use[\s\S]*API key[\s\S]*Edit → Headers/;

it.each([
  ['a JSON body, no WWW-Authenticate', {}, '{"error":"missing api key"}'],
  ['a JSON body, WWW-Authenticate: Bearer realm', { 'www-authenticate': 'Bearer realm="api"' }, '{"error":"missing api key"}'],
  ['a text body', {}, 'Unauthorized'],
])('a server answering 401 with %s: its status and Sign in say it may need an API key', async (_name, headers, body) => {
  const { url, posts } = await apiKeyServer(headers, body);
  const hub: TestHub = await startTestHub(remoteConfig(url));
  closers.push(() => hub.stop());
  // Four connects: the first one, and three retries after it.
  let connects = hub.hub.pool.get('remote')?.status === 'connecting' ? 1 : 0;
  await hub.waitFor((e) => e.type === 'upstream.status' && e.server === 'remote' && e.status === 'connecting' && ++connects >= 4, 'four connects');
  await hub.waitForStatus('remote', 'error');
  const listed = await hub.api<Array<{ id: string; status: string; error?: string }>>('upstreams.list');
  expect(listed.value![0]!.error).toMatch(PLAIN);
  // One registration was tried (the first connect); the retries only ask the server itself.
  expect(posts.filter((path) => path === '/register')).toHaveLength(1);

  const answer = await hub.api('upstreams.signIn', { id: 'remote' });
  expect(answer.ok).toBe(false);
  expect(answer.message).toMatch(PLAIN);
  expect(answer.message).not.toMatch(/could not start|Invalid OAuth|Raw body|SyntaxError/);
});
