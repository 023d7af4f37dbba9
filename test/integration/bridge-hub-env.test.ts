/**
 * The hub a bridge starts gets only the part of the bridge's environment it needs (hub-env.ts): the token
 * a client put in SPILLWAY_TOKEN, or the client's own keys, never reach it nor the servers it runs.
 * A real start through hubLauncher, with a stand-in hub script that writes down what it was given.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hubEnv } from '../../electron/cli/bridge/hub-env.js';
import { hubLauncher } from '../../electron/cli/bridge/launcher.js';
import { NODE } from '../support/hub-harness.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-hub-env-'));
});

afterAll(() => rm(dir, { recursive: true, force: true }));

describe('the environment of a hub the bridge starts', () => {
  it('keeps where things are, the locale, the desktop session and the network; drops the rest', () => {
    const env = hubEnv({
      PATH: '/usr/bin',
      Path: 'C:\\Windows',
      HOME: '/home/ana',
      LC_ALL: 'de_DE.UTF-8',
      XDG_CONFIG_HOME: '/home/ana/.cfg',
      http_proxy: 'http://proxy:3128',
      DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
      SystemRoot: 'C:\\Windows',
      SPILLWAY_TOKEN: 'secret-token',
      SPILLWAY_BRIDGE_TIMEOUT_MS: '1000',
      ANTHROPIC_API_KEY: 'sk-client-key',
      ELECTRON_RUN_AS_NODE: '1',
      NODE_OPTIONS: '--require /tmp/x.js',
      UNSET: undefined,
    });
    expect(env).toEqual({
      PATH: '/usr/bin',
      Path: 'C:\\Windows',
      HOME: '/home/ana',
      LC_ALL: 'de_DE.UTF-8',
      XDG_CONFIG_HOME: '/home/ana/.cfg',
      http_proxy: 'http://proxy:3128',
      DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
      SystemRoot: 'C:\\Windows',
    });
  });

  it('starts the hub without the token or the client’s keys, with its data folder and config set', async () => {
    // Stands in for `spillway serve`: writes its environment down, then fails the way a hub says why.
    const script = join(dir, 'fake-hub.mjs');
    await writeFile(
      script,
      `import { writeFileSync } from 'node:fs';
writeFileSync(${JSON.stringify(join(dir, 'env.json'))}, JSON.stringify(process.env));
console.log('spillway: wrote the environment down');
process.exit(1);
`,
    );
    const start = await hubLauncher({
      dataDir: dir,
      execPath: NODE,
      script,
      env: { PATH: process.env.PATH, HOME: dir, SPILLWAY_TOKEN: 'secret-token', ANTHROPIC_API_KEY: 'sk-client-key' },
      configFile: async () => join(dir, 'config.json'),
    })();
    expect(await start!.failed).toBe('wrote the environment down');
    const seen = JSON.parse(await readFile(join(dir, 'env.json'), 'utf8')) as Record<string, string>;
    expect(seen.SPILLWAY_TOKEN).toBeUndefined();
    expect(seen.ANTHROPIC_API_KEY).toBeUndefined();
    expect(seen.HOME).toBe(dir);
    expect(seen.PATH).toBe(process.env.PATH);
    expect(seen.SPILLWAY_DATA_DIR).toBe(dir);
    expect(seen.SPILLWAY_CONFIG).toBe(join(dir, 'config.json'));
  });
});
