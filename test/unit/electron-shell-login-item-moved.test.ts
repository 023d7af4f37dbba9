/**
 * "Start at login" still on in the OS, set by a copy of the app at another path (the app was moved or
 * updated since): the start writes the item again with this executable, and the setting stays on. Linux
 * run here: the built main process in Node against the electron double, with the real autostart folder
 * (electron-shell-login-item-removed.test.ts has an item the user turned off).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { autostartEntry } from '../../electron/main/login-item.js';
import { until, type ElectronDouble } from '../support/electron-double.js';
import { ROOT } from '../support/hub-harness.js';
import { shellFolders, type ShellFolders } from '../support/shell-folders.js';
import { loadShell } from '../support/shell-run.js';

vi.mock('electron', async () => (await import('../support/electron-double.js')).installedElectron());

let folders: ShellFolders | undefined;
let electron: ElectronDouble;
let entry: string;

beforeAll(async () => {
  folders = await shellFolders('login-moved', { version: 1, settings: { port: 0 }, servers: {} });
  await mkdir(folders.dataDir, { recursive: true });
  await writeFile(join(folders.dataDir, 'app-state.json'), JSON.stringify({ startAtLogin: true }));
  entry = join(folders.home, '.config', 'autostart', 'spillway.desktop');
  await mkdir(join(folders.home, '.config', 'autostart'), { recursive: true });
  await writeFile(entry, autostartEntry(['/old/place/spillway']));
  electron = await loadShell(folders);
});
afterAll(() => folders?.end(electron));

it.runIf(process.platform === 'linux')('a login item still on is written again for this executable, and stays on', async () => {
  electron.app.emitReady();
  await until(() => electron.Tray.all[0]?.menu?.labels().includes('No servers yet'), 'the tray');
  // Written before the tray is built. Unpacked, the command is Electron with the app folder (login-item.ts launchCommand).
  expect(await readFile(entry, 'utf8')).toContain(`Exec=${process.execPath} ${ROOT} --hidden`);
  expect(electron.Tray.all.at(-1)!.menu!.item('Start at login').checked).toBe(true);
  expect(JSON.parse(await readFile(join(folders!.dataDir, 'app-state.json'), 'utf8')).startAtLogin).toBe(true);
});
