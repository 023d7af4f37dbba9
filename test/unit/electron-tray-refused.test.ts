/**
 * The tray's Pause refused (config.json edited by hand since Spillway read it): the refusal is shown in a
 * box with its next step, not only written to the log, since the menu alone would just not change. The
 * real SystemTray against the electron double, with a real hub's control dispatcher and config file.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createAppHub, type AppHub } from '../../electron/core/app/app-hub.js';
import { resolvePaths } from '../../electron/core/files/app-paths.js';
import type { SystemTray } from '../../electron/main/system-tray.js';
import { callsTo, installElectronDouble, until, type ElectronDouble } from '../support/electron-double.js';
import { ROOT } from '../support/hub-harness.js';

vi.mock('electron', async () => (await import('../support/electron-double.js')).installedElectron());

let dir: string;
let configFile: string;
let app: AppHub;
let electron: ElectronDouble;
let tray: SystemTray;
const logged: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-tray-refused-'));
  electron = installElectronDouble({ paths: { home: dir, appData: dir, temp: dir }, appPath: ROOT });
  electron.app.emitReady();
  const paths = resolvePaths({ dataDir: dir, os: { home: dir, platform: process.platform, env: {} } });
  await writeFile(paths.configFile, JSON.stringify({ version: 1, servers: {} }));
  configFile = paths.configFile;
  app = await createAppHub({ paths, platform: process.platform, env: {}, port: 0 });
  await app.hub.start();
  // Imported once the double is in place: system-tray.ts imports electron as it loads.
  const { SystemTray } = await import('../../electron/main/system-tray.js');
  tray = new SystemTray({
    assetsDir: join(ROOT, 'electron', 'assets'),
    platform: process.platform,
    state: () => ({ status: app.status.report(), startAtLogin: false, startAtLoginSupported: true }),
    effects: {
      dispatch: (method, body) => app.dispatcher.dispatch(method, body),
      openWindow: () => undefined,
      copyText: () => undefined,
      setStartAtLogin: () => undefined,
      quit: () => undefined,
    },
    log: (message) => logged.push(message),
  });
});

afterAll(async () => {
  tray?.destroy();
  await app?.hub.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('shows why Pause did not happen, with the next step, when config.json was edited by hand', async () => {
  const edited = JSON.parse(await readFile(configFile, 'utf8'));
  edited.settings = { ...edited.settings, logRetentionDays: 3 };
  await writeFile(configFile, JSON.stringify(edited, undefined, 2));

  electron.Tray.all.at(-1)!.menu!.item('Pause').click();
  const [[box]] = await until(() => callsTo('dialog.showMessageBox').length > 0 && callsTo('dialog.showMessageBox'), 'the refusal shown');
  expect(box).toMatchObject({
    type: 'warning',
    title: 'Spillway',
    message: 'Spillway could not pause.',
    detail: expect.stringMatching(
      /was changed outside Spillway since Spillway read it.*Restart Spillway to pick up the edit, then make the change again\./,
    ),
  });
  expect(logged).toEqual([expect.stringMatching(/^Tray: toggle-pause failed: This change was not saved/)]);
  expect(app.hub.config.settings.paused).toBe(false);
  expect(electron.Tray.all.at(-1)!.menu!.labels()).toContain('Pause');
});
