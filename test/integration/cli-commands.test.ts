/**
 * `spillway` commands run in this process (main() returns the exit code): plain words for a data folder,
 * config file, token file or port that cannot be used, each naming the path and the next step, never a
 * stack trace or a bare code; `<command> --help` prints that command's usage; an AI app's bridge entry
 * carries the config file the CLI was given, when it is not the data folder's own.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { createAppHub } from '../../electron/core/app/app-hub.js';
import { resolvePaths } from '../../electron/core/files/app-paths.js';
import { main } from '../../electron/cli/main.js';

let dir: string;
const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME, SPILLWAY_DATA_DIR: process.env.SPILLWAY_DATA_DIR };
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-cli-commands-'));
  // The clients commands find the apps' files under HOME: never the real user's.
  process.env.HOME = dir;
  process.env.XDG_CONFIG_HOME = join(dir, '.config');
  delete process.env.SPILLWAY_DATA_DIR;
});
afterEach(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

/** Runs `spillway <args>` here, with what it printed. */
async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void (out += `${a.join(' ')}\n`));
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void (err += `${a.join(' ')}\n`));
  vi.spyOn(process.stdout, 'write').mockImplementation((c: string | Uint8Array) => ((out += String(c)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((c: string | Uint8Array) => ((err += String(c)), true));
  try {
    return { code: await main(args), out, err };
  } finally {
    vi.restoreAllMocks();
  }
}

it('token: a token file that cannot be read is named with its code and the next step, not thrown', async () => {
  const data = join(dir, 'data');
  await mkdir(join(data, 'token'), { recursive: true });
  const r = await cli(['token', '--data-dir', data]);
  expect(r.code).toBe(1);
  expect(r.err).toMatch(new RegExp(`^spillway: cannot read ${join(data, 'token')} \\(EISDIR\\): it is a folder`));
  expect(r.err).toContain('start Spillway');
});

it('an unexpected error is one `spillway:` line and exit 1, not a stack trace', async () => {
  vi.doMock('../../electron/cli/bridge/command.js', () => ({
    bridgeCommand: () => Promise.reject(new Error('something broke')),
  }));
  try {
    const r = await cli(['bridge']);
    expect(r).toMatchObject({ code: 1, err: 'spillway: something broke\n' });
  } finally {
    vi.doUnmock('../../electron/cli/bridge/command.js');
  }
});

it('serve: an empty or non-decimal --port is refused, not taken as port 0 or another number', async () => {
  for (const port of ['', ' 80', '0x50', '1e3', '8080.0']) {
    const r = await cli(['serve', `--port=${port}`, '--data-dir', join(dir, 'data')]);
    expect(r.code, port).toBe(2);
    expect(r.err).toContain(`--port must be a whole number from 0 to 65535 (got "${port}")`);
  }
});

it('serve and clients: a data folder that is a file is said in plain words, with the next step', async () => {
  const file = join(dir, 'afile');
  await writeFile(file, '');
  for (const args of [
    ['serve', '--port', '0', '--data-dir', file],
    ['serve', '--port', '0', '--data-dir', join(file, 'sub')],
    ['clients', 'list', '--data-dir', file],
    ['clients', 'list', '--data-dir', join(file, 'sub')],
  ]) {
    const r = await cli(args);
    expect(r.code, args.join(' ')).toBe(1);
    expect(r.err).not.toMatch(/EEXIST|ENOTDIR/);
    expect(r.err).toMatch(/^spillway: the data folder .* (is a file|part of its path is a file)/);
    expect(r.err).toContain('--data-dir DIR (or SPILLWAY_DATA_DIR)');
  }
});

it('serve and clients: a --config that is a folder is said in plain words', async () => {
  const folder = join(dir, 'cfgdir');
  await mkdir(folder);
  for (const command of [
    ['serve', '--port', '0'],
    ['clients', 'list'],
  ]) {
    const r = await cli([...command, '--data-dir', join(dir, 'data'), '--config', folder]);
    expect(r.code).not.toBe(0);
    expect(r.err).not.toContain('EISDIR');
    expect(r.err).toContain(`the config file ${folder} is a folder`);
  }
});

it('<command> --help and -h print that command usage with every flag, and exit 0', async () => {
  const flags: Record<string, string[]> = {
    serve: ['--config', '--data-dir', '--port', '--port-fallback', '--stdio'],
    token: ['--data-dir', '--config'],
    bridge: ['--data-dir', '--config', '--socket', '--url', '--client', '--no-start'],
    clients: ['--yes', '--replace', '--data-dir', '--config'],
  };
  for (const [command, expected] of Object.entries(flags)) {
    for (const help of ['--help', '-h']) {
      const r = await cli([command, help]);
      expect(r.code, `${command} ${help}`).toBe(0);
      expect(r.err).toBe('');
      expect(r.out).toContain(`spillway ${command}`);
      for (const flag of expected) expect(r.out, `${command}: ${flag}`).toContain(flag);
    }
  }
});

it('clients connect --config FILE: the bridge entry starts its hub on FILE (no hub ran in the folder yet)', async () => {
  const file = join(dir, '.config', 'Claude', 'claude_desktop_config.json');
  await mkdir(join(dir, '.config', 'Claude'), { recursive: true });
  await writeFile(file, '{"mcpServers":{}}');
  const servers = join(dir, 'my-servers.json');
  await writeFile(servers, '{"mcpServers":{}}');
  const data = join(dir, 'data');
  const r = await cli(['clients', 'connect', 'claude-desktop', '--data-dir', data, '--config', servers, '--yes']);
  expect(r.code).toBe(0);
  const args = (JSON.parse(await readFile(file, 'utf8')) as { mcpServers: { spillway: { args: string[] } } }).mcpServers.spillway.args;
  expect(args[args.indexOf('--data-dir') + 1]).toBe(data);
  expect(args[args.indexOf('--config') + 1]).toBe(servers);
});

it("a hub on a config file other than the data folder's writes --config into bridge entries; on its own, not", async () => {
  const os = { home: dir, platform: process.platform, env: {} };
  const entryArgs = async (configFile?: string) => {
    const paths = resolvePaths({ dataDir: join(dir, 'data'), configFile, os });
    const app = await createAppHub({
      paths,
      platform: process.platform,
      env: {},
      port: 0,
      clientOs: { home: dir, platform: 'linux', env: { HOME: dir } },
    });
    try {
      const desired = await (await app.clients()).desired('claude-desktop', false);
      return desired.kind === 'stdio' ? desired.args : [];
    } finally {
      await app.releaseFolder();
    }
  };
  const servers = join(dir, 'my-servers.json');
  expect(await entryArgs(servers)).toEqual(expect.arrayContaining(['--config', servers]));
  expect(await entryArgs()).not.toContain('--config');
  expect(await entryArgs(join(dir, 'data', 'config.json'))).not.toContain('--config');
});
