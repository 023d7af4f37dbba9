/**
 * The desktop app started on a data folder a headless hub already serves (`spillway serve`, or the hub a
 * bridge started): it must not become a second hub there (shared token, spill store and ledger). It says
 * so in the dialog and the tray, leaves that hub's record and socket alone, and quits. The built main
 * process runs in Node against the electron double; the headless hub is the real one.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { startHeadless, type RunningHub } from '../../electron/core/app/headless.js';
import { answers } from '../../electron/core/downstream/socket-endpoint.js';
import { resolvePaths } from '../../electron/core/files/app-paths.js';
import { callsTo, until, type ElectronDouble } from '../support/electron-double.js';
import { shellFolders, type ShellFolders } from '../support/shell-folders.js';
import { loadShell, quitApp } from '../support/shell-run.js';

vi.mock('electron', async () => (await import('../support/electron-double.js')).installedElectron());

let folders: ShellFolders | undefined;
let dataDir: string;
let electron: ElectronDouble;
let headless: RunningHub | undefined;

beforeAll(async () => {
  folders = await shellFolders('2hub', { version: 1, settings: { port: 0 }, servers: {} });
  const { home, configFile } = folders;
  dataDir = folders.dataDir;
  const paths = resolvePaths({ dataDir, configFile, os: { home, platform: process.platform, env: process.env } });
  headless = await startHeadless({ paths, platform: process.platform, env: process.env, socket: join(dataDir, 'spillway.sock') });
  electron = await loadShell(folders);
});

afterAll(async () => {
  await quitApp(electron);
  await headless?.stop();
  await folders?.end(electron);
});

it('refuses to be a second hub on a served data folder: says so, keeps the other hub, and quits', async () => {
  const before = await readFile(join(dataDir, 'hub.json'), 'utf8');
  electron.app.emitReady();
  const [[box]] = (await until(() => callsTo('dialog.showMessageBox').length > 0 && callsTo('dialog.showMessageBox'), 'the dialog')) as [
    [{ message: string; detail: string; buttons: string[] }],
  ];
  expect(box.message).toBe('Spillway could not start');
  expect(box.detail).toMatch(/^Spillway is already running for this data folder/);
  expect(box.detail).toContain('Ctrl+C');
  // Nothing to fix in the config: quitting is the one way on.
  expect(box.buttons).toEqual(['Quit']);
  expect(electron.Tray.all[0].menu?.labels()[0]).toMatch(/^Not running: Spillway is already running/);

  await until(() => electron.app.exitCode !== undefined, 'the app to quit');
  // The headless hub still serves: its record (endpoint, pid) and its socket are as they were.
  expect(await readFile(join(dataDir, 'hub.json'), 'utf8')).toBe(before);
  expect(JSON.parse(before)).toMatchObject({ state: 'running', url: headless!.hub.url });
  expect(await answers(headless!.socketPath!)).toBe(true);
});
