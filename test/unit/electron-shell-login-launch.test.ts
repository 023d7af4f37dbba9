/**
 * The shell launched at login (`--hidden`): it starts in the tray without its window, and a second
 * instance started meanwhile — while the hub is still starting — still brings the window up. The built
 * main process runs in Node against the electron double, with the real hub on a temp data folder.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { DoubleEvent, installElectronDouble, until, type ElectronDouble } from '../support/electron-double.js';
import { ROOT } from '../support/hub-harness.js';
import { loadMain, pointShellAt, quitApp, restoreEnv } from '../support/shell-run.js';

vi.mock('electron', async () => (await import('../support/electron-double.js')).installedElectron());

const savedEnv = { ...process.env };
const savedArgv = [...process.argv];
let tmp: string;
let electron: ElectronDouble;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'spillway-shell-login-'));
  const home = join(tmp, 'home');
  await mkdir(home);
  const configFile = join(tmp, 'config.json');
  await writeFile(configFile, JSON.stringify({ version: 1, settings: { port: 0 }, servers: {} }));
  pointShellAt({ dataDir: join(tmp, 'data'), configFile, home });
  process.argv.push('--hidden'); // what the login item passes (login-item.ts)
  electron = installElectronDouble({ paths: { home, appData: tmp, temp: tmp }, appPath: ROOT });
  await loadMain();
});

afterAll(async () => {
  await quitApp(electron);
  process.argv.splice(0, process.argv.length, ...savedArgv);
  restoreEnv(savedEnv);
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

it('a second instance during a hidden start still opens the window once the app is up', async () => {
  electron.app.emitReady();
  // The hub is starting: there is no window to show yet.
  electron.app.emit('second-instance', new DoubleEvent(), ['spillway'], ROOT, {});
  expect(electron.BrowserWindow.getAllWindows()).toEqual([]);
  await until(() => electron.Tray.all[0], 'the tray');
  // The start ends with the tray and then the window, in one go (no wait between them).
  expect(electron.BrowserWindow.getAllWindows()).toHaveLength(1);
  const win = await until(() => electron.BrowserWindow.getAllWindows().find((w) => w.visible && w.isFocused()), 'the window');
  expect(win.loadedFile).toBe(join(ROOT, 'dist/renderer/index.html'));
});
