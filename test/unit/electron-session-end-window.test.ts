/**
 * Windows ends a session (logoff, shutdown) without before-quit; the app hears it only as a window's
 * 'session-end'. The app's usual state is the tray with no window (a login launch with `--hidden`, or the
 * window closed: main-window.ts destroys it), so on win32 lifecycle-events.ts keeps a window that is never
 * shown, only to hear it. Its onSessionEnd against the electron double, with the platform given (the
 * built shell runs on this test's OS; electron-shell-login-launch.test.ts runs it with the app's window).
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { onSessionEnd as OnSessionEnd } from '../../electron/main/lifecycle-events.js';
import { DoubleEvent, installElectronDouble, until, type ElectronDouble } from '../support/electron-double.js';
import { ROOT } from '../support/hub-harness.js';
import { shellFolders, type ShellFolders } from '../support/shell-folders.js';

vi.mock('electron', async () => (await import('../support/electron-double.js')).installedElectron());

let folders: ShellFolders | undefined;
let electron: ElectronDouble;
let onSessionEnd: typeof OnSessionEnd;

beforeAll(async () => {
  folders = await shellFolders('session-end', { version: 1, servers: {} });
  electron = installElectronDouble({ paths: { home: folders.home, appData: folders.tmp, temp: folders.tmp }, appPath: ROOT });
  // Imported once the double is in place: lifecycle-events.ts imports electron as it loads.
  ({ onSessionEnd } = await import('../../electron/main/lifecycle-events.js'));
  electron.app.on('window-all-closed', () => {}); // as main.ts: the app lives in the tray
  electron.app.emitReady();
});
afterAll(async () => {
  await folders?.end(electron);
});

it('keeps no window for it on Linux and macOS (no session-end there)', () => {
  onSessionEnd('linux', () => {});
  onSessionEnd('darwin', () => {});
  expect(electron.BrowserWindow.getAllWindows()).toEqual([]);
});

it('on Windows, with no app window open, a window that is never shown hears the session end, once', async () => {
  const ended = vi.fn();
  onSessionEnd('win32', ended);
  const receivers = electron.BrowserWindow.getAllWindows().filter((w) => w.listenerCount('session-end') > 0);
  expect(receivers).toHaveLength(1);
  const [receiver] = receivers;
  expect(receiver.visible).toBe(false);
  expect(receiver.options).toMatchObject({ show: false, skipTaskbar: true });
  expect(receiver.loadedFile).toBeUndefined();
  // The app window, opened and then heard too: the end is told once however many windows hear it.
  const appWindow = new electron.BrowserWindow({ show: true });
  receiver.emit('session-end', Object.assign(new DoubleEvent(), { reasons: ['logoff'] }));
  appWindow.emit('session-end', Object.assign(new DoubleEvent(), { reasons: ['logoff'] }));
  expect(ended).toHaveBeenCalledTimes(1);
  // It does not hold up a quit.
  electron.app.quit();
  await until(() => electron.app.exitCode !== undefined, 'the app to quit');
  expect(electron.BrowserWindow.getAllWindows()).toEqual([]);
});
