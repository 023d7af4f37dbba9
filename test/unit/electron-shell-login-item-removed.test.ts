/**
 * "Start at login" turned off outside the app (GNOME Tweaks or KDE's Autostart settings remove
 * ~/.config/autostart/spillway.desktop; Task Manager's "Startup apps" disables the Run entry; System
 * Settings → Login Items) stays off at the next start: the app does not write the item again, stores the
 * setting as off and the tray shows it off. Linux run here (the built main process in Node against the
 * electron double, with the real autostart folder); how Windows' and macOS' reports are read, below.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { autostartEntry, autostartEntryOn, reportedLoginItemOn } from '../../electron/main/login-item.js';
import { until, type ElectronDouble } from '../support/electron-double.js';
import { shellFolders, type ShellFolders } from '../support/shell-folders.js';
import { loadShell } from '../support/shell-run.js';

vi.mock('electron', async () => (await import('../support/electron-double.js')).installedElectron());

let folders: ShellFolders | undefined;
let electron: ElectronDouble;

beforeAll(async () => {
  folders = await shellFolders('login-removed', { version: 1, settings: { port: 0 }, servers: {} });
  // An earlier run turned Start at login on; since then the user removed Spillway from the desktop's
  // startup applications (the file is gone), outside the app.
  await mkdir(folders.dataDir, { recursive: true });
  await writeFile(join(folders.dataDir, 'app-state.json'), JSON.stringify({ startAtLogin: true }));
  electron = await loadShell(folders);
});
afterAll(() => folders?.end(electron));

it.runIf(process.platform === 'linux')('a login item the user removed in the OS stays removed, stored and shown as off', async () => {
  electron.app.emitReady();
  // main.ts brings the login item in step with the OS before it makes the tray.
  await until(() => electron.Tray.all[0]?.menu?.labels().includes('No servers yet'), 'the tray');
  expect(existsSync(join(folders!.home, '.config', 'autostart', 'spillway.desktop'))).toBe(false);
  expect(electron.Tray.all.at(-1)!.menu!.item('Start at login').checked).toBe(false);
  expect(JSON.parse(await readFile(join(folders!.dataDir, 'app-state.json'), 'utf8')).startAtLogin).toBe(false);
});

describe('whether the OS still starts the app at login', () => {
  it('Linux: an autostart entry is on unless the desktop turned it off in it', () => {
    const entry = autostartEntry(['/opt/Spillway/spillway']);
    expect(autostartEntryOn(entry)).toBe(true);
    expect(autostartEntryOn(`${entry}Hidden=true\n`)).toBe(false);
    expect(autostartEntryOn(entry.replace('X-GNOME-Autostart-enabled=true', 'X-GNOME-Autostart-enabled=false'))).toBe(false);
    // Only the [Desktop Entry] group counts (an action group's keys are not the entry's).
    expect(autostartEntryOn(`${entry}[Desktop Action x]\nHidden=true\n`)).toBe(true);
  });

  it('Windows: a Run entry for this executable that Task Manager has not disabled, whatever its arguments', () => {
    expect(reportedLoginItemOn('win32', { openAtLogin: false, executableWillLaunchAtLogin: true })).toBe(true);
    expect(reportedLoginItemOn('win32', { openAtLogin: true, executableWillLaunchAtLogin: false })).toBe(false);
  });

  it('macOS: the login item is on (from macOS 13, allowed in System Settings)', () => {
    expect(reportedLoginItemOn('darwin', { openAtLogin: true })).toBe(true);
    expect(reportedLoginItemOn('darwin', { openAtLogin: false })).toBe(false);
  });
});
