/**
 * A quit while the hub is still starting (a logout or an OS update's restart during a login launch, a
 * signal, the session's end): the quit gate is in place before the start, so the quit waits for the
 * start to end, then stops the hub and records it "stopped"; the start then builds no tray or window for
 * an app that is ending. The built main process in Node against the electron double.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { installElectronDouble, until, type ElectronDouble } from '../support/electron-double.js';
import { ROOT } from '../support/hub-harness.js';
import { shellFolders, type ShellFolders } from '../support/shell-folders.js';
import { loadMain } from '../support/shell-run.js';

vi.mock('electron', async () => (await import('../support/electron-double.js')).installedElectron());

let folders: ShellFolders | undefined;
let electron: ElectronDouble;

beforeAll(async () => {
  folders = await shellFolders('quit-start', { version: 1, settings: { port: 0 }, servers: {} });
  electron = installElectronDouble({ paths: { home: folders.home, appData: folders.tmp, temp: folders.tmp }, appPath: ROOT });
  await loadMain();
});
afterAll(async () => {
  await folders?.end(electron);
});

it('a quit during the start waits for the start, then stops the hub; nothing is built after the end', async () => {
  electron.app.emitReady();
  await new Promise((r) => setTimeout(r, 5)); // the hub is starting
  electron.app.quit();
  // The quit waits for the start: the app has not ended yet.
  expect(electron.app.exitCode).toBeUndefined();
  await until(() => electron.app.exitCode !== undefined, 'the app to quit');
  await new Promise((r) => setTimeout(r, 500)); // what the rest of the start would build, if it went on
  const record = JSON.parse(readFileSync(join(folders!.dataDir, 'hub.json'), 'utf8'));
  expect({ trays: electron.Tray.all.length, windows: electron.BrowserWindow.getAllWindows().length, hubJson: record.state }).toEqual({
    trays: 0,
    windows: 0,
    hubJson: 'stopped',
  });
  expect(existsSync(join(folders!.dataDir, 'hub.lock'))).toBe(false);
});
