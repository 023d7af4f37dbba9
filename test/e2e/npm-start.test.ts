/**
 * `npm start` (electron/cli/start.js) where Electron's binary is installed but cannot start — a server
 * without a display, root without --no-sandbox: it says why in one line and runs the hub headless, as
 * where the binary is missing. Electron cannot run here, so a fake binary (a shell script) stands in for
 * it, found through the `electron` package's own override (ELECTRON_OVERRIDE_DIST_PATH).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NODE, ROOT } from '../support/hub-harness.js';
import { spawnUntil } from '../support/processes.js';

const START = join(ROOT, 'electron/cli/start.js');
/** The binary's name inside the dist folder, as the electron package's path.txt gives it. */
const binaryName = () => {
  try {
    return readFileSync(join(ROOT, 'node_modules/electron/path.txt'), 'utf8').trim();
  } catch {
    return 'electron';
  }
};

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** A folder with a fake Electron running `script`, a config on a free port, and start.js's environment. */
async function setup(script: string) {
  const dir = await mkdtemp(join(tmpdir(), 'spillway-npm-start-'));
  dirs.push(dir);
  const dist = join(dir, 'electron-dist');
  const bin = join(dist, binaryName());
  await mkdir(dirname(bin), { recursive: true });
  // No core file from the signal death.
  await writeFile(bin, `#!/bin/sh\nulimit -c 0\n${script}\n`);
  await chmod(bin, 0o755);
  const config = join(dir, 'config.json');
  await writeFile(config, JSON.stringify({ version: 1, settings: { port: 0 }, servers: {} }));
  const env: NodeJS.ProcessEnv = { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: dist, HOME: dir };
  delete env.SPILLWAY_HEADLESS;
  const args = [START, '--data-dir', join(dir, 'data'), '--config', config, '--port', '0'];
  return { env, args };
}

async function exitOf(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(NODE, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  return { code, signal, out };
}

describe.skipIf(process.platform === 'win32')('npm start where Electron is installed', () => {
  it('runs the hub headless, saying why in one line, when Electron dies before it is up', async () => {
    const { env, args } = await setup(`echo 'Missing X server or $DISPLAY' >&2\nkill -s TRAP $$`);
    const hub = await spawnUntil(NODE, args, /Spillway listening on http:\/\/127\.0\.0\.1:\d+\/mcp/, { env });
    try {
      expect(hub.output()).toContain('Missing X server or $DISPLAY');
      expect(hub.output()).toContain(
        'The desktop app could not start here (Electron was ended by SIGTRAP; its message above says why), so Spillway runs headless',
      );
    } finally {
      await hub.stop();
    }
  });

  it('reports a signal death of the running app as a failure, not as success', async () => {
    const { env, args } = await setup(`echo $$ > "$SPILLWAY_UP_FILE"\nkill -s KILL $$`);
    const run = await exitOf(args, env);
    expect(run.code).toBe(128 + 9);
    expect(run.out).not.toContain('headless');
  });

  it('ends quietly when the app quits before it is up (another Spillway had the lock and showed its window)', async () => {
    const { env, args } = await setup('exit 0');
    const run = await exitOf(args, env);
    expect(run).toMatchObject({ code: 0, out: '' });
  });

  it('passes the app’s own exit code on', async () => {
    const { env, args } = await setup(`echo $$ > "$SPILLWAY_UP_FILE"\nexit 3`);
    expect((await exitOf(args, env)).code).toBe(3);
  });
});
