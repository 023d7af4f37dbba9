/**
 * How a bridge finds or starts its hub (issue 13, items 1, 2 and 4), with real processes from the built
 * dist and none of Spillway's variables set (as the written client entries start it): a hub that cannot
 * start is named with its own error within the bound; another Spillway on the port is never used; the
 * hub the bridge starts runs the config file the user's hub ran.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { BIN, LISTENING, bridgeTransport, openBridge, plainEnv, toolListed, type BridgeClient } from '../support/bridge-client.js';
import { NODE, fixture } from '../support/hub-harness.js';
import { commandLine, processesMentioning, stopHubsOf } from '../support/hub-processes.js';
import { spawnUntil, type Started } from '../support/processes.js';

const GATED = fixture('gated-server.mjs');
let root: string;
const dataDirs: string[] = [];
const clients: BridgeClient[] = [];
const hubs: Started[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-bridge-start-'));
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.client.close().catch(() => undefined)));
  await Promise.all(hubs.splice(0).map((h) => h.stop()));
  // Hubs a bridge started are detached: find them by their data folder.
  for (const dir of dataDirs.splice(0)) await stopHubsOf(dir);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A data folder with this config.json. */
async function dataDir(name: string, config: unknown): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(join(dir, 'config.json'), JSON.stringify(config));
  dataDirs.push(dir);
  return dir;
}

async function serve(args: string[]): Promise<Started> {
  const hub = await spawnUntil(NODE, [BIN, 'serve', ...args], LISTENING, { env: plainEnv() });
  hubs.push(hub);
  return hub;
}

async function bridge(args: string[], env = plainEnv()): Promise<BridgeClient> {
  const opened = await openBridge(args, env);
  clients.push(opened);
  return opened;
}

/** The events in a data folder's event log (the app's Activity view reads them). */
async function loggedEvents(dir: string): Promise<{ level: string; message?: string }[]> {
  const logs = join(dir, 'logs');
  const files = (await readdir(logs).catch(() => [] as string[])).filter((f) => f.startsWith('events-'));
  const texts = await Promise.all(files.map((f) => readFile(join(logs, f), 'utf8')));
  return texts
    .join('\n')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { level: string; message?: string });
}

describe('a bridge whose hub cannot start (item 1)', () => {
  it("answers the client within 20 s with the hub's own error, naming the config field and file, and logs it", async () => {
    const dir = await dataDir('broken', { version: 1, servers: { broken: { type: 'stdio', args: ['no command'] } }, settings: { port: 0 } });
    const configFile = join(dir, 'config.json');
    // No SPILLWAY_BRIDGE_TIMEOUT_MS (the written entries never set it): the default bound applies.
    const { transport, stderr } = bridgeTransport(['--data-dir', dir]);
    const client = new Client({ name: 'claude-ai', version: '1' });
    const began = Date.now();
    const error = await client.connect(transport).then(
      () => undefined,
      (err: Error) => err,
    );
    expect(Date.now() - began).toBeLessThan(20_000);
    expect(error?.message).toMatch(/Spillway could not start: /);
    expect(error?.message).toContain('servers.broken');
    expect(error?.message).toContain(configFile);
    expect(stderr()).toMatch(/not running; starting it/);
    await client.close().catch(() => undefined);

    // The same words in the app's own log, not only in hub-autostart.log.
    const logged = (await loggedEvents(dir)).find((e) => e.level === 'error' && e.message?.includes('could not start'));
    expect(logged?.message).toContain('servers.broken');
    expect(logged?.message).toContain(configFile);
  });
});

describe('a bridge and another Spillway on its port (item 2)', () => {
  it('never talks to the other hub (not even with its token): it starts its own', async () => {
    const other = await dataDir('other', { version: 1, servers: {}, settings: { port: 0 } });
    const foreign = await serve(['--data-dir', other, '--port', '0']);
    const port = Number(new URL(foreign.match[1]).port);
    // This folder's config asks for the port the other Spillway holds; its hub ran once and is down now.
    const dir = await dataDir('ours', { version: 1, servers: { ours: { type: 'stdio', command: NODE, args: [GATED] } }, settings: { port } });
    await (await serve(['--data-dir', dir, '--port', '0'])).stop();

    // --no-start: the other hub is not taken for this folder's, so nothing is "running".
    const lone = bridgeTransport(['--data-dir', dir, '--no-start'], plainEnv({ SPILLWAY_BRIDGE_TIMEOUT_MS: '500' }));
    const refused = new Client({ name: 'claude-ai', version: '1' });
    await expect(refused.connect(lone.transport)).rejects.toThrow(/Spillway is not running/);
    await refused.close().catch(() => undefined);
    await lone.said(`${foreign.match[1]} is not this data folder's Spillway`);
    expect(lone.stderr()).not.toMatch(/refused/);

    const { client, stderr } = await bridge(['--data-dir', dir]);
    await toolListed(client, 'ours__ping');
    expect(JSON.stringify((await client.callTool({ name: 'ours__ping', arguments: {} })).content)).toContain('pong');
    expect(stderr()).toMatch(/not running; starting it/);
    expect(stderr()).toMatch(/connected to Spillway \(socket\)/);
    expect(await processesMentioning(dir)).toHaveLength(1);

    // The other Spillway served no session for this folder.
    const otherToken = (await readFile(join(other, 'token'), 'utf8')).trim();
    const sessions = await fetch(`${new URL(foreign.match[1]).origin}/api/sessions.list`, {
      method: 'POST',
      headers: { authorization: `Bearer ${otherToken}` },
      body: '{}',
    }).then((r) => r.json() as Promise<{ ok: boolean; value: unknown[] }>);
    expect(sessions).toEqual({ ok: true, value: [] });
  });
});

describe('the hub a bridge starts (item 4)', () => {
  it("runs the config file the user's hub was started with, not the data folder's config.json", async () => {
    const dir = await dataDir('user-config', {
      version: 1,
      servers: { stale: { type: 'stdio', command: NODE, args: [GATED] } },
      settings: { port: 0 },
    });
    await mkdir(join(root, 'elsewhere'), { recursive: true });
    const userConfig = join(root, 'elsewhere', 'my-spillway.json');
    await writeFile(
      userConfig,
      JSON.stringify({ version: 1, servers: { mine: { type: 'stdio', command: NODE, args: [GATED] } }, settings: { port: 0 } }),
    );
    await (await serve(['--config', userConfig, '--data-dir', dir, '--port', '0'])).stop();

    const { client } = await bridge(['--data-dir', dir]);
    const [pid] = await processesMentioning(dir);
    expect(await commandLine(pid)).toEqual(expect.arrayContaining(['--config', userConfig]));
    await toolListed(client, 'mine__ping');
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('stale__ping');
  });
});
