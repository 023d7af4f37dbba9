/**
 * A start that fails (the configured port is taken): the shell says why in a dialog and in the tray, in
 * the same words the hub records for a bridge, and "Quit" leaves no process and keeps that record. The
 * built main process runs in Node against the electron double, with the real hub on a temp data folder.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { callsTo, until, type ElectronDouble } from '../support/electron-double.js';
import { fixtureServerConfig, shellFolders, type ShellFolders } from '../support/shell-folders.js';
import { loadShell, quitApp } from '../support/shell-run.js';

vi.mock('electron', async () => (await import('../support/electron-double.js')).installedElectron());

const MARKER = `shell-fail-fx-${process.pid}-${Date.now()}`;
let folders: ShellFolders | undefined;
let dataDir: string;
let configFile: string;
let blocker: Server;
let electron: ElectronDouble;

const readStat = (pid: string) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return '';
  }
};
/** Live children of this process (Linux /proc: "state ppid" follow the name in stat). */
const childrenOfThisProcess = () =>
  readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((pid) => {
      const stat = readStat(pid);
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return Number(ppid) === process.pid && state !== 'Z';
    });

beforeAll(async () => {
  blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const { port } = blocker.address() as AddressInfo;
  folders = await shellFolders('fail', fixtureServerConfig(port, ['--name', MARKER]));
  ({ dataDir, configFile } = folders);
  // The dialog's second button: Quit.
  electron = await loadShell(folders, { messageBoxResponse: 1 });
});

afterAll(async () => {
  await quitApp(electron);
  await new Promise((resolve) => blocker?.close(resolve));
  await folders?.end(electron);
});

it('says why in a dialog and the tray, then Quit leaves no process and keeps the failure on record', async () => {
  electron.app.emitReady();
  const [[box]] = (await until(() => callsTo('dialog.showMessageBox').length > 0 && callsTo('dialog.showMessageBox'), 'the dialog')) as [
    [{ message: string; detail: string; buttons: string[] }],
  ];
  expect(box.message).toBe('Spillway could not start');
  expect(box.buttons).toEqual(['Show the config file', 'Quit']);
  const record = JSON.parse(await readFile(join(dataDir, 'hub.json'), 'utf8'));
  expect(record).toMatchObject({ state: 'failed' });
  // One wording everywhere: the dialog says what the bridge will tell its client, next step included.
  expect(box.detail).toContain(record.error);
  expect(record.error).toContain('already in use');
  expect(record.error).toContain(configFile);

  const [tray] = electron.Tray.all;
  expect(tray.menu?.labels()[0]).toMatch(/^Not running: /);
  expect(basename(tray.image.path)).toBe(process.platform === 'darwin' ? 'trayErrorTemplate.png' : 'tray-error.png');

  await until(() => electron.app.exitCode !== undefined, 'the app to quit');
  expect(childrenOfThisProcess()).toEqual([]);
  expect(electron.BrowserWindow.getAllWindows()).toEqual([]);
  // Quitting does not turn "failed, because ..." into "stopped": the reason stays for the next bridge.
  expect(JSON.parse(await readFile(join(dataDir, 'hub.json'), 'utf8'))).toMatchObject({ state: 'failed', error: record.error });
});
