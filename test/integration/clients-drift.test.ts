/**
 * Only the hub that wrote an entry repairs it (issue 13, item 6). Two Spillways on one temp HOME, each
 * with its own data folder, and a third on the first one's folder but on `--port 0`: the drift repair of
 * the others leaves Cursor's and Claude Desktop's files byte for byte; the writer still repairs its own
 * stale entry; and an entry another Spillway wrote since (by the user's explicit connect) is theirs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAppHub, type AppHub } from '../../electron/core/app/app-hub.js';
import { resolvePaths } from '../../electron/core/files/app-paths.js';
import { freePort, startTestHub, type TestHub } from '../support/hub-harness.js';

let home: string;
let a: TestHub;
let b: TestHub;
const cursorFile = () => join(home, '.cursor', 'mcp.json');
const claudeFile = () => join(home, '.config', 'Claude', 'claude_desktop_config.json');
const clientOs = () => ({ home, platform: 'linux' as const, env: { HOME: home } });

async function entry(file: string): Promise<{ url?: string; args?: string[]; headers?: Record<string, string> }> {
  return JSON.parse(await readFile(file, 'utf8')).mcpServers.spillway;
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'spillway-drift-'));
  await mkdir(join(home, '.cursor'), { recursive: true });
  await writeFile(cursorFile(), '{\n  "mcpServers": {}\n}\n');
  await mkdir(join(home, '.config', 'Claude'), { recursive: true });
  await writeFile(claudeFile(), '{\n  "mcpServers": {}\n}\n');
  a = await startTestHub({ version: 1 }, { clientOs: clientOs(), port: await freePort() });
  b = await startTestHub({ version: 1 }, { clientOs: clientOs(), port: await freePort() });
  expect((await a.api('clients.connect', { id: 'cursor' })).ok).toBe(true);
  expect((await a.api('clients.connect', { id: 'claude-desktop' })).ok).toBe(true);
});
afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await rm(home, { recursive: true, force: true });
});

describe('drift repair', () => {
  it("leaves another data folder's entries byte for byte (it sees them as stale, and says nothing)", async () => {
    const cursor = await readFile(cursorFile());
    const claude = await readFile(claudeFile());
    const states = (await b.api<{ id: string; state: string }[]>('clients.list')).value!;
    expect(states.find((c) => c.id === 'cursor')!.state).toBe('stale');
    expect(states.find((c) => c.id === 'claude-desktop')!.state).toBe('stale');
    expect(await b.api('clients.repair')).toEqual({ ok: true, value: [] });
    await b.repairClients();
    expect(await readFile(cursorFile())).toEqual(cursor);
    expect(await readFile(claudeFile())).toEqual(claude);
  });

  it('leaves them alone from a hub on the same folder but on port 0 (its port dies with it)', async () => {
    const cursor = await readFile(cursorFile());
    const paths = resolvePaths({ dataDir: a.dir, os: { home: homedir(), platform: process.platform, env: {} } });
    const ephemeral: AppHub = await createAppHub({ paths, platform: process.platform, env: process.env, port: 0, clientOs: clientOs() });
    await ephemeral.hub.start();
    try {
      const states = (await ephemeral.dispatcher.dispatch('clients.list', {})) as { ok: true; value: { id: string; state: string }[] };
      expect(states.value.find((c) => c.id === 'cursor')!.state).toBe('stale');
      expect(await ephemeral.dispatcher.dispatch('clients.repair', {})).toEqual({ ok: true, value: [] });
      expect(await readFile(cursorFile())).toEqual(cursor);
      // Asked to connect Cursor, it says why the entry would not last instead of writing it.
      const refused = await ephemeral.dispatcher.dispatch('clients.connect', { id: 'cursor' });
      expect(refused).toMatchObject({ ok: false, code: 'unavailable', message: expect.stringMatching(/port 0.*restarts/) });
      expect(await readFile(cursorFile())).toEqual(cursor);
    } finally {
      await ephemeral.hub.stop();
    }
  });

  it('the hub that wrote the entry still repairs it when it goes stale', async () => {
    const stale = JSON.parse(await readFile(cursorFile(), 'utf8'));
    stale.mcpServers.spillway.url = 'http://127.0.0.1:1/mcp';
    await writeFile(cursorFile(), JSON.stringify(stale, null, 2));
    expect((await a.api<{ id: string; repaired: boolean }[]>('clients.repair')).value).toEqual([
      { id: 'cursor', repaired: true, restartHint: expect.stringContaining('Cursor picks up the change by itself') },
    ]);
    expect((await entry(cursorFile())).url).toBe(a.url);
  });

  it('after the user connects Cursor to the other Spillway, the first one leaves that entry alone', async () => {
    expect((await b.api('clients.connect', { id: 'cursor' })).ok).toBe(true);
    expect((await entry(cursorFile())).url).toBe(b.url);
    const cursor = await readFile(cursorFile());
    expect((await a.api<{ id: string }[]>('clients.repair')).value).toEqual([]);
    expect(await readFile(cursorFile())).toEqual(cursor);
  });
});
