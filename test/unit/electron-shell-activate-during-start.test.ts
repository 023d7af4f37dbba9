/**
 * macOS reopening a running app (Dock, Launchpad, Finder, `open -a`) emits 'activate', not
 * 'second-instance'. One that comes while the hub still starts, after a hidden (login) start, is kept as
 * a second instance is, and the window opens once there is one. The built main process in Node against
 * the electron double.
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { DoubleEvent, until, type ElectronDouble } from '../support/electron-double.js';
import { shellFolders, type ShellFolders } from '../support/shell-folders.js';
import { loadShell } from '../support/shell-run.js';

vi.mock('electron', async () => (await import('../support/electron-double.js')).installedElectron());

let folders: ShellFolders | undefined;
let electron: ElectronDouble;

beforeAll(async () => {
  // A login launch (on macOS: wasOpenedAtLogin).
  folders = await shellFolders('activate', { version: 1, settings: { port: 0 }, servers: {} }, { argv: ['--hidden'] });
  electron = await loadShell(folders);
});
afterAll(() => folders?.end(electron));

it("the user reopens the app (macOS 'activate') while the hub still starts: the window opens once it can", async () => {
  electron.app.emitReady();
  electron.app.emit('activate', new DoubleEvent(), false); // hasVisibleWindows: false
  await until(() => electron.BrowserWindow.getAllWindows().find((w) => w.visible), 'the window');
  expect(electron.BrowserWindow.getAllWindows()).toHaveLength(1);
});
