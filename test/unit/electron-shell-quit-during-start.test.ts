/**
 * A quit while the hub is still starting (a logout or an OS update's restart during a login launch, a
 * signal, the session's end): the quit gate is in place before the start, so the quit waits for the
 * start to end, then stops the hub and records it "stopped"; the start then builds no tray or window for
 * an app that is ending. The built main process in Node against the electron double.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { until, type ElectronDouble } from '../support/electron-double.js';
import { shellFolders, type ShellFolders } from '../support/shell-folders.js';
import { loadShell } from '../support/shell-run.js';

vi.mock('electron', async () => (await import('../support/electron-double.js')).installedElectron());

let folders: ShellFolders | undefined;
let electron: ElectronDouble;

beforeAll(async () => {
  folders = await shellFolders('quit-start', { version: 1, settings: { port: 0 }, servers: {} });
  electron = await loadShell(folders);
});
afterAll(() => folders?.end(electron));

it('a quit during the start waits for the start, then stops the hub; nothing is built after the end', async () => {
  // main.ts puts the quit gate in place (its before-quit listener), then starts the hub in the same turn:
  // once that turn is over, the hub is starting.
  const gateInPlace = new Promise<void>((resolve) => electron.app.on('newListener', (name) => name === 'before-quit' && resolve()));
  electron.app.emitReady();
  await gateInPlace;
  expect(electron.app.listenerCount('before-quit')).toBe(1);
  electron.app.quit();
  // The quit waits for the start: the app has not ended yet.
  expect(electron.app.exitCode).toBeUndefined();
  await until(() => electron.app.exitCode !== undefined, 'the app to quit');
  // The rest of the start runs in the turn the start ends in, before the quit goes on (main.ts): a tray
  // or window it built would be here by now.
  const record = JSON.parse(readFileSync(join(folders!.dataDir, 'hub.json'), 'utf8'));
  expect({ trays: electron.Tray.all.length, windows: electron.BrowserWindow.getAllWindows().length, hubJson: record.state }).toEqual({
    trays: 0,
    windows: 0,
    hubJson: 'stopped',
  });
  expect(existsSync(join(folders!.dataDir, 'hub.lock'))).toBe(false);
});
