/**
 * A second hub started on a data folder another hub serves, or is starting on, is refused before it opens
 * a store (app-hub.ts, hub-record.ts claimDataFolder). Opening them is not harmless: the spill store's
 * start-up cleanup empties spill/.raw and removes the result folders its copy of the index does not list
 * yet, which are the running hub's newest results (the index is written a second after a spill). The
 * hubs here run in this process (the bridge socket refuses the second); e2e/second-serve.test.ts runs
 * them as two `spillway serve` processes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHeadless, type RunningHub } from '../../electron/core/app/headless.js';
import { toolListed } from '../support/bridge-client.js';
import { fixture, NODE, nodeServer, testPaths } from '../support/hub-harness.js';

let dir: string;
let running: RunningHub[] = [];
let sleeper: ChildProcess | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-second-hub-'));
  await writeFile(
    testPaths(dir).configFile,
    JSON.stringify({ version: 1, settings: { port: 0 }, servers: { big: { type: 'stdio', ...nodeServer(fixture('big-result-server.mjs')) } } }),
  );
});
afterEach(async () => {
  for (const hub of running) await hub.stop();
  running = [];
  sleeper?.kill();
  sleeper = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function start(): Promise<RunningHub> {
  const hub = await startHeadless({ paths: testPaths(dir), platform: process.platform, env: process.env, port: 0 });
  running.push(hub);
  return hub;
}

async function connect(hub: RunningHub): Promise<Client> {
  const client = new Client({ name: 'test-client', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(hub.hub.url), { requestInit: { headers: { authorization: `Bearer ${hub.hub.token}` } } }),
  );
  return client;
}

/**
 * Every file and folder under `folder`, with what changes when it is rewritten or made again; not the
 * index file, which the first hub writes a second after a spill.
 */
async function tree(folder: string): Promise<Record<string, string>> {
  const seen: Record<string, string> = {};
  for (const name of await readdir(folder, { recursive: true })) {
    if (name.startsWith('index.json')) continue;
    const s = await stat(join(folder, name));
    seen[name] = `${s.ino} ${s.size} ${s.mtimeMs}`;
  }
  return seen;
}

/** A process that runs until killed: a live pid that is not this one. */
async function livePid(): Promise<number> {
  sleeper = spawn(NODE, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  await once(sleeper, 'spawn');
  return sleeper.pid!;
}

async function deadPid(): Promise<number> {
  const child = spawn(NODE, ['-e', ''], { stdio: 'ignore' });
  await once(child, 'exit');
  return child.pid!;
}

describe('a second hub on a served data folder', () => {
  it('is refused before it opens a store: the first hub keeps its newest spilled result and spill/.raw', async () => {
    const first = await start();
    const client = await connect(first);
    await toolListed(client, 'big__big');
    const result = await client.callTool({ name: 'big__big', arguments: { chars: 200_000 } });
    const handle = (result._meta as Record<string, string>)['spillway/handle'];
    expect(handle).toMatch(/^[a-z2-7]{12,}$/);
    const spillDir = testPaths(dir).spillDir;
    // At once, while the index file does not list the result yet.
    const before = await tree(spillDir);
    expect(Object.keys(before)).toContain(handle);
    expect(Object.keys(before)).toContain('.raw');

    await expect(start()).rejects.toThrow(/^Another Spillway hub is already running for this data folder/);
    expect(await tree(spillDir)).toEqual(before);
    const back = await client.callTool({ name: 'spillway__read_result', arguments: { handle, op: 'head' } });
    expect(back.isError).toBeFalsy();
    expect(JSON.stringify(back.content)).toContain('line of log output');
    await client.close();
  });
});

describe("the data folder's lock (hub.lock)", () => {
  const lockFile = () => join(dir, 'hub.lock');

  it('is held while the hub runs and removed when it stops', async () => {
    const hub = await start();
    expect((await readFile(lockFile(), 'utf8')).trim()).toBe(String(process.pid));
    await hub.stop();
    await expect(stat(lockFile())).rejects.toThrow(/ENOENT/);
  });

  it('is given up by a start that fails, and kept by one that moves to a free port', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      const options = { paths: testPaths(dir), platform: process.platform, env: process.env, port };
      await expect(startHeadless(options)).rejects.toThrow(/EADDRINUSE/);
      await expect(stat(lockFile())).rejects.toThrow(/ENOENT/);
      const moved = await startHeadless({ ...options, portFallback: true });
      running.push(moved);
      expect((await readFile(lockFile(), 'utf8')).trim()).toBe(String(process.pid));
      await moved.stop();
      await expect(stat(lockFile())).rejects.toThrow(/ENOENT/);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('held by a hub still starting (its process lives), refuses a second start that then touches nothing', async () => {
    const pid = await livePid();
    await writeFile(lockFile(), `${pid}\n`);
    const before = await readdir(dir);
    await expect(start()).rejects.toThrow(
      `Another Spillway hub is already running for this data folder (process ${pid} is starting it). If it does not respond, quit it (or end its process) and try again.`,
    );
    expect(await readdir(dir)).toEqual(before);
    expect((await readFile(lockFile(), 'utf8')).trim()).toBe(String(pid));
  });

  it('left by a process that has ended, is taken over', async () => {
    await writeFile(lockFile(), `${await deadPid()}\n`);
    await start();
    expect((await readFile(lockFile(), 'utf8')).trim()).toBe(String(process.pid));
  });

  it('older than a start takes, is taken over although its pid lives (another program may have that pid now)', async () => {
    await writeFile(lockFile(), `${await livePid()}\n`);
    const old = new Date(Date.now() - 5 * 60_000);
    await utimes(lockFile(), old, old);
    await start();
    expect((await readFile(lockFile(), 'utf8')).trim()).toBe(String(process.pid));
  });
});
