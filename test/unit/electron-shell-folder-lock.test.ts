/**
 * The desktop app holds its data folder's lock (hub.lock, app/hub-record.ts) from before its hub opens a
 * store until Quit has stopped it: a `spillway serve` or a bridge's hub started meanwhile is refused, and
 * one started after Quit is not. The built main process runs in Node against the electron double.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { until, type ElectronDouble } from '../support/electron-double.js';
import { fixtureServerConfig, shellFolders, type ShellFolders } from '../support/shell-folders.js';
import { loadShell } from '../support/shell-run.js';

vi.mock('electron', async () => (await import('../support/electron-double.js')).installedElectron());

let shell: ShellFolders | undefined;
let electron: ElectronDouble;

beforeAll(async () => {
  shell = await shellFolders('lock', fixtureServerConfig(0));
  electron = await loadShell(shell);
});

afterAll(() => shell?.end(electron));

it('holds hub.lock while the hub runs, and removes it once Quit has stopped the hub', async () => {
  const lock = join(shell!.dataDir, 'hub.lock');
  const record = () =>
    readFile(join(shell!.dataDir, 'hub.json'), 'utf8').then(
      (t) => JSON.parse(t) as { state: string },
      () => undefined,
    );
  electron.app.emitReady();
  // The tray comes once the start is done, hub.json written.
  await until(() => electron.Tray.all.length > 0, 'the tray');
  expect(await record()).toMatchObject({ state: 'running' });
  expect((await readFile(lock, 'utf8')).trim()).toBe(String(process.pid));

  electron.app.quit();
  await until(() => electron.app.exitCode !== undefined, 'the app to quit');
  await expect(stat(lock)).rejects.toThrow(/ENOENT/);
  expect(await record()).toMatchObject({ state: 'stopped' });
});
