/** An app's "last seen" in the Clients view survives a restart of the hub (it was kept in memory only). */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { AppHub } from '../../electron/core/app/app-hub.js';
import { createTestAppHub, freePort, testPaths } from '../support/hub-harness.js';

let dir: string | undefined;
let running: AppHub | undefined;
afterAll(async () => {
  await running?.hub.stop();
  await running?.releaseFolder();
  if (dir) await rm(dir, { recursive: true, force: true });
});

type Listed = { ok: true; value: { id: string; lastSeen?: string }[] };

it("an app's last-seen time is the same after the hub restarts", async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-seen-'));
  const home = join(dir, 'home');
  await mkdir(join(home, '.cursor'), { recursive: true });
  await writeFile(testPaths(dir).configFile, JSON.stringify({ mcpServers: {} }));
  // A fixed port: an HTTP entry is written only for a port that lasts.
  const options = { port: await freePort(), clientOs: { home, platform: 'linux' as const, env: { HOME: home } } };
  const start = async () => {
    const app = await createTestAppHub(dir!, options);
    await app.hub.start();
    return app;
  };
  const lastSeen = async (app: AppHub) =>
    ((await app.dispatcher.dispatch('clients.list', {})) as Listed).value.find((c) => c.id === 'cursor')?.lastSeen;

  running = await start();
  expect(await running.dispatcher.dispatch('clients.connect', { id: 'cursor' })).toMatchObject({ ok: true });
  const entry = JSON.parse(await readFile(join(home, '.cursor', 'mcp.json'), 'utf8')).mcpServers.spillway;
  const cursor = new Client({ name: 'cursor', version: '1.0.0' });
  await cursor.connect(new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers: entry.headers } }));
  await cursor.listTools();
  await cursor.close();
  const before = await lastSeen(running);
  expect(before).toEqual(expect.any(String));

  await running.hub.stop();
  await running.releaseFolder();
  running = undefined;
  running = await start();
  expect(await lastSeen(running)).toBe(before);
}, 60_000);
