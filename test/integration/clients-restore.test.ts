/**
 * Restore after the hub repaired an entry by itself, with real hubs on one data folder and a temp HOME:
 * setup moves Claude Code's memory server into Spillway; the hub starts again on another port and its
 * drift repair rewrites the entry's URL; Clients → Restore still gives back the file as it was before
 * setup (the user's memory server, not an old-port Spillway entry). Also: a client file readable by
 * everyone becomes the owner's only once Spillway writes a bearer token into it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppHub } from '../../electron/core/app/app-hub.js';
import { MEMORY, NODE, createTestAppHub, freePort, testPaths } from '../support/hub-harness.js';

let dir: string;
let home: string;
let running: AppHub | undefined;
const claudeCodeFile = () => join(home, '.claude.json');
const ORIGINAL = JSON.stringify({ numStartups: 3, mcpServers: { memory: { command: NODE, args: [MEMORY] } } }, null, 2) + '\n';

async function startHub(port: number): Promise<AppHub> {
  const app = await createTestAppHub(dir, { port, clientOs: { home, platform: 'linux', env: { HOME: home } } });
  await app.hub.start();
  running = app;
  return app;
}

async function call<T>(app: AppHub, method: string, req: unknown = {}): Promise<T> {
  const r = (await app.dispatcher.dispatch(method, req)) as { ok: boolean; value?: T; message?: string };
  if (!r.ok) throw new Error(`${method}: ${r.message}`);
  return r.value as T;
}

const spillwayUrl = async () => (JSON.parse(await readFile(claudeCodeFile(), 'utf8')).mcpServers.spillway as { url: string }).url;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-restore-'));
  home = join(dir, 'home');
  await writeFile(testPaths(dir).configFile, JSON.stringify({ version: 1 }));
  await mkdir(home, { recursive: true });
  await writeFile(claudeCodeFile(), ORIGINAL);
  await chmod(claudeCodeFile(), 0o644);
});

afterAll(async () => {
  await running?.hub.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('Restore after a repair', () => {
  it('undoes setup, not the repair the hub made at its next start', async () => {
    const first = await startHub(await freePort());
    const r = await call<{ imported: string[] }>(first, 'clients.import', { id: 'claude-code', names: ['memory'], replace: true });
    expect(r.imported).toEqual(['memory']);
    expect(await spillwayUrl()).toBe(first.hub.url);
    // It was 0644; now it holds Claude Code's bearer token, so only its owner can read it.
    if (process.platform !== 'win32') expect((await stat(claudeCodeFile())).mode & 0o777).toBe(0o600);
    await first.hub.stop();

    // Started again on another port: the drift check rewrites the entry (with a backup of its own).
    const second = await startHub(await freePort());
    await second.repairClients();
    expect(await spillwayUrl()).toBe(second.hub.url);

    await call(second, 'clients.restore', { id: 'claude-code' });
    expect(await readFile(claudeCodeFile(), 'utf8')).toBe(ORIGINAL);
  });
});
