/**
 * A second Spillway: it does not get the single-instance lock, so it quits at once — before 'ready',
 * without a hub, a tray, a window or a process of its own. (The first instance's side, 'second-instance'
 * focusing its window, is in electron-shell-lifecycle.test.ts.)
 */
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { callsTo, installElectronDouble, type ElectronDouble } from '../support/electron-double.js';
import { ROOT } from '../support/hub-harness.js';
import { loadMain, pointShellAt, restoreEnv } from '../support/shell-run.js';

vi.mock('electron', async () => (await import('../support/electron-double.js')).installedElectron());

const savedEnv = { ...process.env };
let tmp: string;
let dataDir: string;
let electron: ElectronDouble;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'spillway-shell-second-'));
  dataDir = join(tmp, 'data');
  pointShellAt({ dataDir, configFile: join(tmp, 'config.json') });
  electron = installElectronDouble({ paths: { home: tmp, appData: tmp, temp: tmp }, appPath: ROOT, primaryInstance: false });
  await loadMain();
});

afterAll(async () => {
  restoreEnv(savedEnv);
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

it('a second instance quits at once and starts nothing', () => {
  expect(electron.app.lockRequested).toBe(true);
  expect(callsTo('app.quit')).toHaveLength(1);
  expect(electron.app.exitCode).toBe(0);
  // Nothing waits for 'ready' and no hub was built: the data folder holds no hub record, token or config.
  expect(electron.app.listenerCount('ready')).toBe(0);
  expect(electron.app.listenerCount('second-instance')).toBe(0);
  expect(existsSync(join(dataDir, 'hub.json'))).toBe(false);
  expect(readdirSync(dataDir)).toEqual([]);
  expect(existsSync(join(tmp, 'config.json'))).toBe(false);
});
