/**
 * A failed start and the record of "the other hub": the record is kept only when that hub still runs and
 * proves it is this data folder's at its endpoint. A record left "running" by a hub that never quit
 * (killed, or Windows logging off) whose pid now belongs to another program must not hide the failure.
 */
import { readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { recordStartFailure } from '../../electron/core/app/hub-record.js';
import { resolvePaths } from '../../electron/core/files/app-paths.js';
import { loadOrCreateHubId } from '../../electron/core/files/hub-identity.js';
import { NODE, ROOT } from '../support/hub-harness.js';
import { spawnUntil, type Started } from '../support/processes.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function folder() {
  const dataDir = await mkdtemp(join(tmpdir(), 'spillway-hub-record-'));
  cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
  const configFile = join(dataDir, 'config.json');
  await writeFile(configFile, JSON.stringify({ version: 1, settings: { port: 0 }, servers: {} }));
  return resolvePaths({ dataDir, configFile, os: { home: dataDir, platform: process.platform, env: {} } });
}

const portTaken = (port: number) =>
  Object.assign(new Error(`listen EADDRINUSE: address already in use 127.0.0.1:${port}`), { code: 'EADDRINUSE', port });
const record = async (dataDir: string) => JSON.parse(await readFile(join(dataDir, 'hub.json'), 'utf8')) as Record<string, unknown>;

it('a stale "running" record whose pid is another program does not hide the failure', async () => {
  const paths = await folder();
  await loadOrCreateHubId(paths.dataDir);
  // Another program now holds the recorded port, and the recorded pid is alive (this test's parent).
  const squatter: Server = createServer((_req, res) => res.end(JSON.stringify({ proof: 'not this folder' })));
  await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
  cleanup.push(() => new Promise((resolve) => squatter.close(resolve)));
  const { port } = squatter.address() as AddressInfo;
  const stale = {
    state: 'running',
    pid: process.ppid,
    configFile: paths.configFile,
    url: `http://127.0.0.1:${port}/mcp`,
    at: '2026-01-01T00:00:00Z',
  };
  await writeFile(join(paths.dataDir, 'hub.json'), JSON.stringify(stale));

  const message = await recordStartFailure(paths, portTaken(port));
  expect(await record(paths.dataDir)).toMatchObject({ state: 'failed', pid: process.pid, error: message });
});

it('the record of this folder’s hub that still runs stays', async () => {
  const paths = await folder();
  const hub: Started = await spawnUntil(
    NODE,
    [join(ROOT, 'electron/cli/spillway.js'), 'serve', '--data-dir', paths.dataDir, '--config', paths.configFile, '--port', '0'],
    /Spillway listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/,
  );
  cleanup.push(() => hub.stop());
  const running = await record(paths.dataDir);
  expect(running).toMatchObject({ state: 'running', pid: hub.child.pid });

  await recordStartFailure(paths, portTaken(Number(hub.match[1])));
  expect(await record(paths.dataDir)).toEqual(running);
});
