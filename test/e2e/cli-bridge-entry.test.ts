/**
 * What an AI app runs after `spillway clients connect`: the entry names the data folder and the config
 * file as absolute paths (the app runs the bridge from a folder of its own), so the hub its bridge starts
 * where none ran yet runs the config file the user gave; and a bridge whose data folder was deleted
 * (Spillway uninstalled while the app still runs) does not start a hub that makes the folder again.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, expect, it } from 'vitest';
import { BIN, LISTENING, openBridge, plainEnv } from '../support/bridge-client.js';
import { NODE } from '../support/hub-harness.js';
import { stopHubsOf } from '../support/hub-processes.js';
import { spawnUntil } from '../support/processes.js';

let home: string;
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close().catch(() => undefined);
  if (home) await rm(home, { recursive: true, force: true });
});

type HubRecord = { pid: number; state: string; configFile?: string };
const record = async (dataDir: string) => JSON.parse(await readFile(join(dataDir, 'hub.json'), 'utf8')) as HubRecord;

it('clients connect with a relative --data-dir and --config: the bridge the app runs starts its hub on that config', async () => {
  home = await mkdtemp(join(tmpdir(), 'spillway-bridge-entry-'));
  const env = plainEnv({ HOME: home, XDG_CONFIG_HOME: join(home, '.config') });
  const appFile = join(home, '.config', 'Claude', 'claude_desktop_config.json');
  await mkdir(join(home, '.config', 'Claude'), { recursive: true });
  await writeFile(appFile, '{"mcpServers":{}}');
  await writeFile(join(home, 'my-servers.json'), JSON.stringify({ mcpServers: {}, settings: { port: 0 } }));
  const connect = spawn(NODE, [BIN, 'clients', 'connect', 'claude-desktop', '--data-dir', 'reldata', '--config', 'my-servers.json', '--yes'], {
    cwd: home,
    env,
    stdio: 'ignore',
  });
  expect((await once(connect, 'exit'))[0]).toBe(0);
  const entry = (JSON.parse(await readFile(appFile, 'utf8')) as { mcpServers: { spillway: { command: string; args: string[] } } }).mcpServers
    .spillway;
  const dataDir = join(home, 'reldata');
  expect(entry.args[entry.args.indexOf('--data-dir') + 1]).toBe(dataDir);
  expect(entry.args[entry.args.indexOf('--config') + 1]).toBe(join(home, 'my-servers.json'));
  closing.push(() => stopHubsOf(dataDir));

  // As the app runs it: its own working folder, no Spillway variables.
  const appDir = join(home, 'app-folder');
  await mkdir(appDir);
  const transport = new StdioClientTransport({ command: entry.command, args: entry.args, env, cwd: appDir, stderr: 'pipe' });
  const client = new Client({ name: 'claude-ai', version: '1' });
  await client.connect(transport);
  closing.unshift(() => client.close());
  expect((await record(dataDir)).configFile).toBe(join(home, 'my-servers.json'));
  expect(existsSync(join(appDir, 'reldata'))).toBe(false);
});

it('a bridge whose data folder was deleted does not start a hub that makes it again', async () => {
  home = await mkdtemp(join(tmpdir(), 'spillway-bridge-entry-'));
  const dataDir = join(home, 'data');
  await mkdir(dataDir);
  await writeFile(join(dataDir, 'config.json'), JSON.stringify({ mcpServers: {}, settings: { port: 0 } }));
  // Spillway runs as the app does: a process of its own, here this test's child, so its end is an event.
  const hub = await spawnUntil(NODE, [BIN, 'serve', '--data-dir', dataDir], LISTENING, { env: plainEnv({ HOME: home }) });
  const bridge = await openBridge(['--data-dir', dataDir, '--client', 'claude-desktop'], plainEnv({ HOME: home }));
  closing.push(
    () => bridge.client.close(),
    () => hub.stop(),
    () => stopHubsOf(dataDir),
  );
  const first = await record(dataDir);
  expect(first.state).toBe('running');
  expect(first.pid).toBe(hub.child.pid);

  // README "Uninstall": quit Spillway, then delete its data folder; the app and its bridge still run.
  await hub.stop();
  await rm(dataDir, { recursive: true, force: true });
  // The bridge waits 10 s for its hub to come back before it would start one.
  await bridge.said('was deleted, so no new Spillway is started there');
  // That was its one try at starting a hub, and it says nothing more until a hub answers: let it end (as
  // when the app quits), so whatever it still had under way is over when the folder is looked at.
  const ended = new Promise<void>((resolve) => (bridge.client.onclose = resolve));
  await bridge.client.close();
  await ended;
  expect(existsSync(dataDir)).toBe(false);
}, 60_000);
