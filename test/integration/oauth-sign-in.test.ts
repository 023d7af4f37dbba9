/**
 * OAuth sign-in of an HTTP upstream through a real hub (issue 15), against an OAuth-protected fixture
 * server built with the SDK's server-side auth (2 s access tokens): 401 → needs sign-in → signIn → the
 * browser's steps (authorize → redirect to the hub's callback) → ready → a call works → past the token's
 * lifetime a call still works (a refresh_token grant) → hub restart on the same data folder: still signed
 * in without a new authorize → signOut → needs sign-in. Also: wrong state, reused state, denied consent.
 * Afterwards no token or client secret is anywhere in the data folder, config.json or the event log.
 */
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubEvent } from '../../shared/events.js';
import type { AppHub } from '../../electron/core/app/app-hub.js';
import { createTestAppHub, testPaths } from '../support/hub-harness.js';
import { browse } from '../support/oauth-browser.js';
import { remoteConfig, startOAuthFixture, type OAuthFixture } from '../support/oauth-flow.js';

let server: OAuthFixture;
let dir: string;
let app: AppHub | undefined;
const mcpUrl = () => server.url;
const stats = () => server.stats();
const poke = async (path: string) => (await fetch(new URL(path, mcpUrl()), { method: 'POST' })).body?.cancel();
const paths = () => testPaths(dir);

beforeAll(async () => {
  server = await startOAuthFixture('--token-lifetime', '2');
  dir = await mkdtemp(join(tmpdir(), 'spillway-oauth-'));
  await writeFile(paths().configFile, JSON.stringify(remoteConfig(mcpUrl())));
});
afterAll(async () => {
  await app?.hub.stop();
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function startHub(): Promise<AppHub> {
  const started = await createTestAppHub(dir);
  // Subscribed before start: the first status changes come while it starts.
  statuses = [];
  started.hub.events.subscribe((e) => {
    if (e.type === 'upstream.status' && e.server === 'remote') statuses.push(e.status);
  });
  await started.hub.start();
  app = started;
  return started;
}

let statuses: string[] = [];

/** Resolves once the upstream has this status (now or on a later status event). */
function status(hubApp: AppHub, wanted: string): Promise<void> {
  if (hubApp.hub.pool.get('remote')?.status === wanted) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for remote ${wanted} (saw ${statuses.join(', ')})`)), 25_000);
    const off = hubApp.hub.events.subscribe((e: HubEvent) => {
      if (e.type === 'upstream.status' && e.server === 'remote' && e.status === wanted) {
        clearTimeout(timer);
        off();
        resolve();
      }
    });
  });
}

async function api<T>(hubApp: AppHub, method: string, body: unknown = {}) {
  const res = await fetch(`${hubApp.hub.endpoint.origin}/api/${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${hubApp.hub.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await res.json()) as { ok: boolean; value?: T; code?: string; message?: string };
}

type Listed = { id: string; status: string; auth?: { state: string; authorizationUrl?: string } };
const listed = async (hubApp: AppHub) => (await api<Listed[]>(hubApp, 'upstreams.list')).value!.find((u) => u.id === 'remote')!;

/** The redirect the authorization server would send, without following it (to replay or alter it). */
async function callbackUrl(authorizationUrl: string): Promise<URL> {
  const res = await fetch(authorizationUrl, { redirect: 'manual' });
  await res.body?.cancel();
  return new URL(res.headers.get('location')!);
}

async function connectClient(hubApp: AppHub): Promise<Client> {
  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(hubApp.hub.url), { requestInit: { headers: { authorization: `Bearer ${hubApp.hub.token}` } } }),
  );
  return client;
}

async function whoami(client: Client) {
  const { tools } = await client.listTools();
  const name = tools.find((t) => t.name.endsWith('whoami'))!.name;
  return client.callTool({ name, arguments: {} });
}

async function filesUnder(root: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(root, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.push(join(entry.parentPath, entry.name));
  }
  return out;
}

describe('OAuth sign-in of an HTTP upstream through the hub', () => {
  it('signs in, refreshes silently, survives a restart, signs out', async () => {
    let hubApp = await startHub();
    await status(hubApp, 'needs-sign-in');
    expect(statuses).not.toContain('error');
    const before = await listed(hubApp);
    expect(before.auth?.state).toBe('needs-sign-in');

    const signIn = await api<{ authorizationUrl: string }>(hubApp, 'upstreams.signIn', { id: 'remote' });
    expect(signIn.ok).toBe(true);
    const authorizationUrl = new URL(signIn.value!.authorizationUrl);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(mcpUrl());
    expect(authorizationUrl.searchParams.get('redirect_uri')).toBe(new URL('/oauth/callback', hubApp.hub.url).href);

    const readyNow = status(hubApp, 'ready');
    const page = await browse(authorizationUrl.href);
    expect(page.callback.startsWith(new URL('/oauth/callback', hubApp.hub.url).href)).toBe(true);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Signed in');
    await readyNow;
    expect((await listed(hubApp)).auth?.state).toBe('signed-in');

    const client = await connectClient(hubApp);
    const first = await whoami(client);
    expect(first.isError, JSON.stringify(first.content)).toBeFalsy();
    expect(JSON.stringify(first.content)).toContain('signed in as');

    // Past the access token's lifetime (expired at once rather than waited for): the upstream's next
    // request meets a 401 and the SDK refreshes.
    const refreshesBefore = (await stats()).refreshGrants;
    await poke('/expire-access-tokens');
    const second = await whoami(client);
    expect(second.isError).toBeFalsy();
    expect((await stats()).refreshGrants).toBeGreaterThan(refreshesBefore);
    await client.close();

    // A restart on the same data folder: the stored tokens, refreshed, and no new authorize.
    const before2 = await stats();
    await hubApp.hub.stop();
    await poke('/expire-access-tokens');
    hubApp = await startHub();
    await status(hubApp, 'ready');
    expect(statuses).not.toContain('needs-sign-in');
    const after2 = await stats();
    expect(after2.authorizations).toBe(before2.authorizations);
    expect(after2.refreshGrants).toBeGreaterThan(before2.refreshGrants);
    const again = await connectClient(hubApp);
    expect((await whoami(again)).isError).toBeFalsy();
    await again.close();

    const out = await api<{ revoked: boolean }>(hubApp, 'upstreams.signOut', { id: 'remote' });
    expect(out).toMatchObject({ ok: true, value: { revoked: true } });
    await status(hubApp, 'needs-sign-in');
    expect((await listed(hubApp)).auth?.state).toBe('needs-sign-in');
    expect((await stats()).revocations).toBeGreaterThan(0);

    // Nothing the authorization server issued is in the data folder, config.json or the event log
    // (stopped first, so that every write has landed).
    await hubApp.hub.stop();
    app = undefined;
    const issued = (await stats()).issued;
    expect(issued.length).toBeGreaterThan(3);
    const files = [...(await filesUnder(dir)), paths().configFile];
    for (const file of files) {
      if (!(await stat(file).catch(() => undefined))) continue;
      const text = await readFile(file, 'latin1');
      for (const secret of issued) expect(text.includes(secret), `${secret} in ${file}`).toBe(false);
    }
  });

  it('refuses a wrong state, a reused state and a denied consent with a page saying what to do', async () => {
    const hubApp = await startHub();
    await status(hubApp, 'needs-sign-in');
    const callback = new URL('/oauth/callback', hubApp.hub.url);

    const wrong = await fetch(`${callback.href}?code=abc&state=forged`);
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toMatch(/already used, or was not made by this Spillway[\s\S]*Sign in again/);

    const { authorizationUrl } = (await api<{ authorizationUrl: string }>(hubApp, 'upstreams.signIn', { id: 'remote' })).value!;
    const denied = new URL(callback);
    denied.searchParams.set('error', 'access_denied');
    denied.searchParams.set('state', new URL(authorizationUrl).searchParams.get('state')!);
    const deniedPage = await fetch(denied);
    expect(deniedPage.status).toBe(400);
    expect(await deniedPage.text()).toMatch(/Access denied[\s\S]*allow access/);
    expect(hubApp.hub.pool.get('remote')?.status).toBe('needs-sign-in');

    const second = (await api<{ authorizationUrl: string }>(hubApp, 'upstreams.signIn', { id: 'remote' })).value!;
    const redirect = await callbackUrl(second.authorizationUrl);
    const readyNow = status(hubApp, 'ready');
    const ok = await fetch(redirect);
    expect(ok.status).toBe(200);
    await readyNow;
    const replay = await fetch(redirect);
    expect(replay.status).toBe(200);
    expect(await replay.text()).toContain('already finished');
    expect(hubApp.hub.pool.get('remote')?.status).toBe('ready');

    // A refresh that fails: back to needs sign-in, with a notice; the tools say what to do.
    const client = await connectClient(hubApp);
    const notice = new Promise<HubEvent>((resolve) => {
      const off = hubApp.hub.events.subscribe((e) => {
        if (e.type === 'upstream.status' && e.server === 'remote' && e.status === 'needs-sign-in') {
          off();
          resolve(e);
        }
      });
    });
    const { tools } = await client.listTools();
    const name = tools.find((t) => t.name.endsWith('whoami'))!.name;
    await poke('/forget-refresh-tokens');
    await poke('/expire-access-tokens');
    const failed = await client.callTool({ name, arguments: {} });
    expect(failed.isError).toBe(true);
    expect(await notice).toMatchObject({ level: 'warn', error: expect.stringContaining('Sign in') });
    const after = await client.callTool({ name, arguments: {} });
    expect(after.isError).toBe(true);
    expect(JSON.stringify(after.content)).toMatch(/Servers view/);
    await client.close();
    await hubApp.hub.stop();
    app = undefined;
  });
});
