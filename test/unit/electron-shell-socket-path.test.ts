/**
 * A data folder too deep for a Unix socket path: the hub's socket falls back to a folder of this user's
 * own under the temp folder. The desktop app must listen where the bridge looks (the bridge computes the
 * path from os.tmpdir()), even where Electron's own temp folder is another one. The built main process
 * runs in Node against the electron double.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { answers, socketPathFor } from '../../electron/core/downstream/socket-endpoint.js';
import { installElectronDouble, until, type ElectronDouble } from '../support/electron-double.js';
import { ROOT } from '../support/hub-harness.js';
import { loadMain, pointShellAt, quitApp, restoreEnv } from '../support/shell-run.js';

vi.mock('electron', async () => (await import('../support/electron-double.js')).installedElectron());

const savedEnv = { ...process.env };
let tmp: string;
let dataDir: string;
let electron: ElectronDouble;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'spillway-shell-socket-'));
  const home = join(tmp, 'home');
  await mkdir(home);
  dataDir = join(tmp, 'a-data-folder-deep-enough-that-its-socket-path-is-longer-than-a-unix-socket-may-be', 'data');
  const configFile = join(tmp, 'config.json');
  await writeFile(configFile, JSON.stringify({ version: 1, settings: { port: 0 }, servers: {} }));
  pointShellAt({ dataDir, configFile, home });
  // Electron's temp folder differs from the one the bridge computes from.
  const electronTemp = join(tmp, 'electron-temp');
  await mkdir(electronTemp);
  electron = installElectronDouble({ paths: { home, appData: tmp, temp: electronTemp }, appPath: ROOT });
  await loadMain();
});

afterAll(async () => {
  await quitApp(electron);
  restoreEnv(savedEnv);
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

it.skipIf(process.platform === 'win32')('listens on the socket path the bridge computes for a deep data folder', async () => {
  const bridgeLooksAt = socketPathFor({ dataDir, platform: process.platform, tmpDir: tmpdir(), uid: process.getuid?.() });
  expect(bridgeLooksAt.startsWith(tmpdir())).toBe(true);
  electron.app.emitReady();
  // The tray comes once the hub has started (its socket attached, or given up).
  await until(() => electron.Tray.all[0]?.menu, 'the tray');
  expect(await answers(bridgeLooksAt)).toBe(true);
});
