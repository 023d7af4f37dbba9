/**
 * The desktop app started while `spillway serve` holds its data folder on the config's port (serve's
 * default): the port is taken before the socket could tell, yet the app must say that Spillway already
 * runs for this folder (the other hub proves it at its recorded endpoint), not send the user to change a
 * port in the config of a hub that runs fine. What its start opened is closed at once, and the other
 * hub's record stays. The built main process runs in Node against the electron double; `spillway serve`
 * is the real one, in its own process.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { BIN, LISTENING, plainEnv } from '../support/bridge-client.js';
import { callsTo, until, type ElectronDouble } from '../support/electron-double.js';
import { freePort, NODE } from '../support/hub-harness.js';
import { spawnUntil, type Started } from '../support/processes.js';
import { shellFolders, type ShellFolders } from '../support/shell-folders.js';
import { loadShell, quitApp } from '../support/shell-run.js';

vi.mock('electron', async () => (await import('../support/electron-double.js')).installedElectron());

let folders: ShellFolders | undefined;
let dataDir: string;
let electron: ElectronDouble;
let serve: Started | undefined;

beforeAll(async () => {
  folders = await shellFolders('served-port', { version: 1, settings: { port: await freePort() }, servers: {} });
  const { home, configFile } = folders;
  dataDir = folders.dataDir;
  // No --port: serve listens on the config's port, the one the app will try.
  serve = await spawnUntil(NODE, [BIN, 'serve', '--data-dir', dataDir, '--config', configFile], LISTENING, { env: plainEnv({ HOME: home }) });
  electron = await loadShell(folders);
});

afterAll(async () => {
  await quitApp(electron);
  await serve?.stop();
  await folders?.end(electron);
});

it('says Spillway already runs for this folder, not that a port must change, and keeps the other hub', async () => {
  const before = await readFile(join(dataDir, 'hub.json'), 'utf8');
  expect(JSON.parse(before)).toMatchObject({ state: 'running', pid: serve!.child.pid });
  // The hub's exit hooks (one SIGHUP listener among them) stay only while its start is not undone.
  const listenersBefore = process.listenerCount('SIGHUP');
  electron.app.emitReady();
  const [[box]] = (await until(() => callsTo('dialog.showMessageBox').length > 0 && callsTo('dialog.showMessageBox'), 'the dialog')) as [
    [{ detail: string; buttons: string[] }],
  ];
  expect(box.detail).toMatch(/^Spillway is already running for this data folder/);
  expect(box.detail).not.toMatch(/port/i);
  expect(box.buttons).toEqual(['Quit']);
  expect(process.listenerCount('SIGHUP')).toBe(listenersBefore);

  await until(() => electron.app.exitCode !== undefined, 'the app to quit');
  expect(await readFile(join(dataDir, 'hub.json'), 'utf8')).toBe(before);
  expect(serve!.child.exitCode).toBeNull();
});
