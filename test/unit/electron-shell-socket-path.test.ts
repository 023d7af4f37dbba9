/**
 * A data folder too deep for a Unix socket path: the hub's socket falls back to a folder of this user's
 * own in /tmp. The desktop app must listen where the bridge looks (/tmp/spillway-<uid>, whatever TMPDIR
 * says), even where Electron's own temp folder is another one. The built main process runs in Node
 * against the electron double.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { answers, socketPathFor } from '../../electron/core/downstream/socket-endpoint.js';
import { installElectronDouble, until, type ElectronDouble } from '../support/electron-double.js';
import { ROOT } from '../support/hub-harness.js';
import { shellFolders, type ShellFolders } from '../support/shell-folders.js';
import { loadMain } from '../support/shell-run.js';

vi.mock('electron', async () => (await import('../support/electron-double.js')).installedElectron());

let folders: ShellFolders | undefined;
let dataDir: string;
let electron: ElectronDouble;

beforeAll(async () => {
  const deep = join('a-data-folder-deep-enough-that-its-socket-path-is-longer-than-a-unix-socket-may-be', 'data');
  folders = await shellFolders('socket', { version: 1, settings: { port: 0 }, servers: {} }, { dataDir: deep });
  dataDir = folders.dataDir;
  // Electron's temp folder differs from the one the bridge computes from.
  const electronTemp = join(folders.tmp, 'electron-temp');
  await mkdir(electronTemp);
  electron = installElectronDouble({ paths: { home: folders.home, appData: folders.tmp, temp: electronTemp }, appPath: ROOT });
  await loadMain();
});

afterAll(() => folders?.end(electron));

it.skipIf(process.platform === 'win32')('listens on the socket path the bridge computes for a deep data folder', async () => {
  const bridgeLooksAt = socketPathFor({ dataDir, platform: process.platform, uid: process.getuid?.() });
  expect(bridgeLooksAt.startsWith(`/tmp/spillway-${process.getuid?.()}/`)).toBe(true);
  electron.app.emitReady();
  // The tray comes once the hub has started (its socket attached, or given up).
  await until(() => electron.Tray.all[0]?.menu, 'the tray');
  expect(await answers(bridgeLooksAt)).toBe(true);
});
