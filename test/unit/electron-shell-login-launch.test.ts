/**
 * The shell launched at login (`--hidden`): it starts in the tray without its window, and a second
 * instance started meanwhile — while the hub is still starting — still brings the window up. Then the
 * login item itself: one that cannot be written is not shown as on. Then the session ends (Windows logs
 * off: no before-quit) and the hub stops and says so in its record. The built main process runs in Node
 * against the electron double, with the real hub on a temp data folder.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { callsTo, DoubleEvent, until, type ElectronDouble } from '../support/electron-double.js';
import { ROOT } from '../support/hub-harness.js';
import { shellFolders, type ShellFolders } from '../support/shell-folders.js';
import { loadShell } from '../support/shell-run.js';

vi.mock('electron', async () => (await import('../support/electron-double.js')).installedElectron());

let folders: ShellFolders | undefined;
let tmp: string;
let home: string;
let dataDir: string;
let electron: ElectronDouble;

beforeAll(async () => {
  // --hidden: what the login item passes (login-item.ts).
  folders = await shellFolders('login', { version: 1, settings: { port: 0 }, servers: {} }, { argv: ['--hidden'] });
  ({ tmp, home, dataDir } = folders);
  // The autostart folder cannot be made: a file is in its way (a read-only ~/.config does the same).
  await mkdir(join(home, '.config'));
  await writeFile(join(home, '.config', 'autostart'), 'not a folder');
  process.env.SPILLWAY_UP_FILE = join(tmp, 'up'); // what `npm start` passes (cli/start.js)
  electron = await loadShell(folders);
});

afterAll(() => folders?.end(electron));

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

it('tells `npm start` it is up, and hands that variable to nobody else', async () => {
  expect(await readFile(join(tmp, 'up'), 'utf8')).toBe(`${process.pid}\n`);
  expect(process.env.SPILLWAY_UP_FILE).toBeUndefined();
});

it.runIf(process.platform === 'linux')('a Start at login that could not be applied is not shown as on, and says why', async () => {
  const tray = () => electron.Tray.all[0];
  const menu = tray().menu!;
  expect(menu.item('Start at login').checked).toBe(false);
  menu.item('Start at login').click();
  const [[box]] = (await until(() => callsTo('dialog.showMessageBox').length > 0 && callsTo('dialog.showMessageBox'), 'the dialog')) as [
    [{ message: string; detail: string }],
  ];
  expect(box.message).toBe('Spillway could not be set to start at login');
  expect(box.detail).toContain(`Make sure the folder ${join(home, '.config', 'autostart')} can be created and written, then try again.`);
  // The menu is rebuilt from what is true: off, and stored as off.
  await until(() => tray().menu !== menu, 'the menu rebuilt');
  expect(tray().menu!.item('Start at login').checked).toBe(false);
  const stateFile = join(dataDir, 'app-state.json');
  const stored: unknown = existsSync(stateFile) ? JSON.parse(await readFile(stateFile, 'utf8')).startAtLogin : undefined;
  expect(stored ?? false).toBe(false);
  expect(existsSync(join(home, '.config/autostart/spillway.desktop'))).toBe(false);
});

it('stops the hub and records it when the session ends (Windows sends no before-quit then)', async () => {
  expect(JSON.parse(await readFile(join(dataDir, 'hub.json'), 'utf8'))).toMatchObject({ state: 'running' });
  const [win] = electron.BrowserWindow.getAllWindows();
  win.emit('session-end', Object.assign(new DoubleEvent(), { reasons: ['logoff'] }));
  await until(() => electron.app.exitCode !== undefined, 'the app to quit');
  expect(JSON.parse(await readFile(join(dataDir, 'hub.json'), 'utf8'))).toMatchObject({ state: 'stopped', pid: process.pid });
});
