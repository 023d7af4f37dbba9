/**
 * A server signed in before a restart and not connected in this run (turned off, or started on first use)
 * lists as signed in (issue 15), from the tokens stored for it, so the window offers Sign out; signing
 * out revokes them.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createTestAppHub, testPaths } from '../support/hub-harness.js';
import { browse } from '../support/oauth-browser.js';
import { startOAuthFixture } from '../support/oauth-flow.js';

type App = Awaited<ReturnType<typeof createTestAppHub>>;
const api = async <T>(app: App, method: string, body: unknown = {}) =>
  (await (
    await fetch(`${app.hub.endpoint.origin}/api/${method}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.hub.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  ).json()) as { ok: boolean; value?: T; message?: string };

const listed = async (app: App) =>
  (await api<{ id: string; auth?: { state: string } }[]>(app, 'upstreams.list')).value!.find((u) => u.id === 'remote');

it('a turned-off server signed in before a restart lists as signed in, and Sign out revokes', async () => {
  const server = await startOAuthFixture('--no-registration', '--client-id', 'my-app', '--token-lifetime', '300');
  const dir = await mkdtemp(join(tmpdir(), 'oauth-stored-state-'));
  const cfgFile = testPaths(dir).configFile;
  await writeFile(
    cfgFile,
    JSON.stringify({ version: 1, servers: { remote: { type: 'http', url: server.url, headers: {}, oauthClientId: 'my-app' } } }),
  );
  let app = await createTestAppHub(dir);
  await app.hub.start();
  try {
    const answer = await api<{ authorizationUrl: string }>(app, 'upstreams.signIn', { id: 'remote' });
    expect(answer.ok).toBe(true);
    expect((await browse(answer.value!.authorizationUrl)).status).toBe(200);
    await app.hub.stop();
    const cfg = JSON.parse(await readFile(cfgFile, 'utf8'));
    cfg.servers.remote.enabled = false;
    await writeFile(cfgFile, JSON.stringify(cfg));
    app = await createTestAppHub(dir);
    await app.hub.start();
    expect((await listed(app))?.auth?.state).toBe('signed-in');
    const out = await api<{ revoked: boolean }>(app, 'upstreams.signOut', { id: 'remote' });
    expect(out.value?.revoked).toBe(true);
    expect((await server.stats()).revocations).toBe(2);
    expect((await listed(app))?.auth?.state).toBe('none');
  } finally {
    await app.hub.stop();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
