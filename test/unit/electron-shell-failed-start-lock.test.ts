/**
 * A desktop start that fails (the configured port is taken) gives its data folder's lock (hub.lock) up at
 * once, not only at Quit: the app stays open on its dialog, and a `spillway serve` started meanwhile must
 * not be refused as a second hub. The built main process runs in Node against the electron double.
 */
import { stat } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { callsTo, until, type ElectronDouble } from '../support/electron-double.js';
import { fixtureServerConfig, shellFolders, type ShellFolders } from '../support/shell-folders.js';
import { loadShell, quitApp } from '../support/shell-run.js';

vi.mock('electron', async () => (await import('../support/electron-double.js')).installedElectron());

let shell: ShellFolders | undefined;
let blocker: Server;
let electron: ElectronDouble;

beforeAll(async () => {
  blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  shell = await shellFolders('failed-lock', fixtureServerConfig((blocker.address() as AddressInfo).port));
  // The dialog's first button: "Show the config file", and the app stays open.
  electron = await loadShell(shell, { messageBoxResponse: 0 });
});

afterAll(async () => {
  await quitApp(electron);
  await new Promise((resolve) => blocker?.close(resolve));
  await shell?.end(electron);
});

it('removes hub.lock as soon as the start has failed, while the app stays open', async () => {
  electron.app.emitReady();
  await until(() => callsTo('dialog.showMessageBox').length > 0, 'the dialog');
  expect(electron.app.exitCode).toBeUndefined();
  await expect(stat(join(shell!.dataDir, 'hub.lock'))).rejects.toThrow(/ENOENT/);
});
