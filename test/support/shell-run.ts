/**
 * The electron-shell tests' common steps around the built main process (dist/electron/main/main.js, run
 * in Node against the electron double): where it looks for its folders, loading it, and quitting it.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { IPC_CHANNELS } from '../../electron/main/ipc-binding.js';
import { installElectronDouble, until, type DoubleBrowserWindow, type DoubleTray, type ElectronDouble } from './electron-double.js';
import { ROOT } from './hub-harness.js';
import type { ShellFolders } from './shell-folders.js';

/** The shell's entry point, as package.json "main" names it. */
export const MAIN = join(ROOT, 'dist/electron/main/main.js');

/**
 * Points the shell at these folders through the variables it reads, with the built renderer (no dev
 * server). Take a copy of process.env first and hand it to restoreEnv afterwards.
 */
export function pointShellAt(folders: { dataDir: string; configFile: string; home?: string }): void {
  Object.assign(process.env, { SPILLWAY_DATA_DIR: folders.dataDir, SPILLWAY_CONFIG: folders.configFile });
  if (folders.home) Object.assign(process.env, { HOME: folders.home, XDG_CONFIG_HOME: join(folders.home, '.config') });
  delete process.env.SPILLWAY_RENDERER_URL;
}

/** Puts process.env back to `saved`, a copy taken before the test changed it. */
export function restoreEnv(saved: NodeJS.ProcessEnv): void {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
}

/** Loads the main process (once per test file: the module runs on its first import only). */
export async function loadMain(): Promise<void> {
  await import(pathToFileURL(MAIN).href);
}

/**
 * Installs the electron double for the shell of `folders` (HOME is their home; appData, unless given, and
 * temp their temp folder; a dialog answers with button `messageBoxResponse`) and loads the main process.
 * 'ready' is the test's to emit.
 */
export async function loadShell(
  folders: Pick<ShellFolders, 'home' | 'tmp'>,
  options: { appData?: string; messageBoxResponse?: number } = {},
): Promise<ElectronDouble> {
  const { appData = folders.tmp, messageBoxResponse } = options;
  const electron = installElectronDouble({
    paths: { home: folders.home, appData, temp: folders.tmp },
    appPath: ROOT,
    ...(messageBoxResponse === undefined ? {} : { messageBoxResponse }),
  });
  await loadMain();
  return electron;
}

/** Quits the app unless it has exited already, and waits until it has. */
export async function quitApp(electron: ElectronDouble | undefined): Promise<void> {
  if (electron && electron.app.exitCode === undefined) {
    electron.app.quit();
    await until(() => electron.app.exitCode !== undefined, 'the app to quit');
  }
}

/** The newest tray the shell made; throws when it has made none. */
export function newestTray(electron: ElectronDouble): DoubleTray {
  const tray = electron.Tray.all.at(-1);
  if (!tray) throw new Error('no tray');
  return tray;
}

/** The labels of the newest tray's menu, in order (none before it has a menu). */
export const trayLabels = (electron: ElectronDouble): string[] => newestTray(electron).menu?.labels() ?? [];

/** A control API call as the window's page makes it over IPC, from its main frame. */
export const callFromPage = (electron: ElectronDouble, win: DoubleBrowserWindow, method: string, req: unknown = {}) =>
  electron.ipcMain.invokeFrom(win.webContents, { url: win.contents.getURL(), parent: null }, IPC_CHANNELS.call, { method, req });
