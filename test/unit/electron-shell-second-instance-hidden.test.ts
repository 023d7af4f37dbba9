/**
 * The login item (the Windows Run key, the XDG autostart entry: `Spillway --hidden`) starting while
 * Spillway already runs, e.g. started a moment earlier by an AI app's bridge, comes as 'second-instance'
 * with `--hidden` in its argv: the window stays closed, as the login asked. Any other second instance still
 * opens it. The built main process in Node against the electron double (the rule itself, with a request
 * before the window exists: window-requests.test.ts).
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { DoubleEvent, until, type ElectronDouble } from '../support/electron-double.js';
import { ROOT } from '../support/hub-harness.js';
import { shellFolders, type ShellFolders } from '../support/shell-folders.js';
import { loadShell } from '../support/shell-run.js';

vi.mock('electron', async () => (await import('../support/electron-double.js')).installedElectron());

let folders: ShellFolders | undefined;
let electron: ElectronDouble;

beforeAll(async () => {
  // This (first) instance is in the tray, its window closed.
  folders = await shellFolders('second-hidden', { version: 1, settings: { port: 0 }, servers: {} }, { argv: ['--hidden'] });
  electron = await loadShell(folders);
});
afterAll(() => folders?.end(electron));

it('a second instance started by the login item (--hidden) does not open the window', async () => {
  electron.app.emitReady();
  // main.ts attaches its window requests in the turn it makes the tray: from here each is handled as it comes.
  await until(() => electron.Tray.all[0], 'the tray');
  expect(electron.BrowserWindow.getAllWindows()).toHaveLength(0);
  electron.app.emit('second-instance', new DoubleEvent(), ['C:\\Program Files\\Spillway\\Spillway.exe', '--hidden'], ROOT, {});
  // Handled as it was emitted: a window it asked for would exist by now (main-window.ts makes it at once).
  expect(electron.BrowserWindow.getAllWindows()).toHaveLength(0);
});

it('any other second instance opens the window', async () => {
  electron.app.emit('second-instance', new DoubleEvent(), ['C:\\Program Files\\Spillway\\Spillway.exe'], ROOT, {});
  await until(() => electron.BrowserWindow.getAllWindows().find((w) => w.visible && w.isFocused()), 'the window');
});
