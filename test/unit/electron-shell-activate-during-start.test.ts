/**
 * macOS reopening a running app (Dock, Launchpad, Finder, `open -a`) emits 'activate', not
 * 'second-instance'. One that comes while the hub still starts, after a hidden (login) start, is kept as
 * a second instance is, and the window opens once there is one. The built main process in Node against
 * the electron double.
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { DoubleEvent, installElectronDouble, until, type ElectronDouble } from '../support/electron-double.js';
import { ROOT } from '../support/hub-harness.js';
import { shellFolders, type ShellFolders } from '../support/shell-folders.js';
import { loadMain, quitApp } from '../support/shell-run.js';

vi.mock('electron', async () => (await import('../support/electron-double.js')).installedElectron());

const savedArgv = [...process.argv];
let folders: ShellFolders | undefined;
let electron: ElectronDouble;

beforeAll(async () => {
  folders = await shellFolders('activate', { version: 1, settings: { port: 0 }, servers: {} });
  process.argv.push('--hidden'); // a login launch (on macOS: wasOpenedAtLogin)
  electron = installElectronDouble({ paths: { home: folders.home, appData: folders.tmp, temp: folders.tmp }, appPath: ROOT });
  await loadMain();
});
afterAll(async () => {
  await quitApp(electron);
  process.argv.splice(0, process.argv.length, ...savedArgv);
  await folders?.end(electron);
});

it("the user reopens the app (macOS 'activate') while the hub still starts: the window opens once it can", async () => {
  electron.app.emitReady();
  electron.app.emit('activate', new DoubleEvent(), false); // hasVisibleWindows: false
  await until(() => electron.Tray.all[0], 'the tray');
  await new Promise((r) => setTimeout(r, 300));
  expect(electron.BrowserWindow.getAllWindows().filter((w) => w.visible)).toHaveLength(1);
});
