/**
 * The login item (the Windows Run key, the XDG autostart entry: `Spillway --hidden`) starting while
 * Spillway already runs, e.g. started a moment earlier by an AI app's bridge, comes as 'second-instance'
 * with `--hidden` in its argv: the window stays closed, as the login asked. Any other second instance still
 * opens it. The built main process in Node against the electron double.
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
  folders = await shellFolders('second-hidden', { version: 1, settings: { port: 0 }, servers: {} });
  process.argv.push('--hidden'); // this (first) instance is in the tray, window closed
  electron = installElectronDouble({ paths: { home: folders.home, appData: folders.tmp, temp: folders.tmp }, appPath: ROOT });
  await loadMain();
});
afterAll(async () => {
  await quitApp(electron);
  process.argv.splice(0, process.argv.length, ...savedArgv);
  await folders?.end(electron);
});

it('a second instance started by the login item (--hidden) does not open the window', async () => {
  electron.app.emitReady();
  await until(() => electron.Tray.all[0], 'the tray');
  expect(electron.BrowserWindow.getAllWindows()).toHaveLength(0);
  electron.app.emit('second-instance', new DoubleEvent(), ['C:\\Program Files\\Spillway\\Spillway.exe', '--hidden'], ROOT, {});
  await new Promise((r) => setTimeout(r, 300));
  expect(electron.BrowserWindow.getAllWindows().filter((w) => w.visible)).toHaveLength(0);
});

it('any other second instance opens the window', async () => {
  electron.app.emit('second-instance', new DoubleEvent(), ['C:\\Program Files\\Spillway\\Spillway.exe'], ROOT, {});
  await until(() => electron.BrowserWindow.getAllWindows().find((w) => w.visible && w.isFocused()), 'the window');
});
