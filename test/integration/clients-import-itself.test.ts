/**
 * Import never offers Spillway itself (audit s17, connect item 3). An entry the user added by hand under
 * another name than "spillway" (the address and key the Clients view hands out), or a bridge to this data
 * folder, used to be offered, and importing it made the hub one of its own upstreams, calling itself.
 * Such a server is refused wherever servers are added, in plain words; a local server on another port
 * is not Spillway and is still offered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startTestHub, type TestHub } from '../support/hub-harness.js';

let home: string;
let hub: TestHub;
let port: number;
let otherPort: number;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'spillway-import-itself-'));
  port = await freePort();
  otherPort = await freePort();
  hub = await startTestHub({ version: 1 }, { clientOs: { home, platform: 'linux', env: { HOME: home } }, port });
  await mkdir(join(home, '.cursor'), { recursive: true });
  const servers = {
    Spillway: { url: `http://127.0.0.1:${port}/mcp`, headers: { Authorization: `Bearer ${hub.token}` } },
    'spillway-key': { url: `http://localhost:${port}/mcp?token=abc` },
    'spillway-bridge': { command: '/opt/Spillway/spillway', args: ['/opt/x/spillway.js', 'bridge', '--data-dir', hub.dir] },
    figma: { url: `http://127.0.0.1:${otherPort}/mcp` },
  };
  await writeFile(join(home, '.cursor', 'mcp.json'), JSON.stringify({ mcpServers: servers }, null, 2));
});
afterAll(async () => {
  await hub?.stop();
  await rm(home, { recursive: true, force: true });
});

const upstreamUrls = async () => (await hub.api<{ config: { url?: string } }[]>('upstreams.list')).value!.map((u) => u.config.url);

describe('Spillway itself in an app', () => {
  it('is not offered for import; a local server on another port is', async () => {
    const candidates = await hub.api<{ name: string }[]>('clients.importCandidates', { id: 'cursor' });
    expect(candidates.value?.map((c) => c.name)).toEqual(['figma']);
  });

  it('importing it is refused, in plain words, and adds nothing', async () => {
    const r = await hub.api('clients.import', { id: 'cursor', names: ['Spillway', 'figma'], replace: false });
    expect(r).toMatchObject({ ok: false, code: 'invalid', field: 'names' });
    expect(r.message).toMatch(/"Spillway" in Cursor's settings is Spillway itself .* it would call itself\. Nothing was changed\./);
    expect(await upstreamUrls()).toEqual([]);
  });

  it('changing a server to its address is refused too, and the server keeps its own', async () => {
    const added = await hub.api<{ id: string }>('upstreams.add', {
      id: 'other',
      config: { type: 'http', url: `http://127.0.0.1:${otherPort}/mcp`, enabled: false },
    });
    expect(added.ok, added.message).toBe(true);
    const r = await hub.api('upstreams.update', { id: 'other', config: { type: 'http', url: `http://127.0.0.1:${port}/mcp`, enabled: false } });
    expect(r).toMatchObject({ ok: false, code: 'invalid', field: 'config.url' });
    expect(r.message).toMatch(/is Spillway itself .* it would call itself/);
    expect(await upstreamUrls()).toEqual([`http://127.0.0.1:${otherPort}/mcp`]);
    expect((await hub.api('upstreams.remove', { id: 'other' })).ok).toBe(true);
  });

  it('adding its address or its bridge as a server is refused too', async () => {
    for (const config of [
      { type: 'http', url: `http://127.0.0.1:${port}/mcp` },
      { type: 'stdio', command: '/opt/Spillway/spillway', args: ['bridge', `--data-dir=${hub.dir}`] },
    ]) {
      const r = await hub.api('upstreams.add', { name: 'loop', config });
      expect(r).toMatchObject({ ok: false, code: 'invalid' });
      expect(r.message).toMatch(/is Spillway itself .* it would call itself/);
    }
    expect(await upstreamUrls()).toEqual([]);
  });
});
