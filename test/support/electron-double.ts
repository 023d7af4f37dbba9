/**
 * A test double of the `electron` module — the one fake the tests allow, because the Electron binary
 * cannot run here. It lets the real shell (dist/electron/main/main.js, as package.json "main" names it)
 * run in Node, and records what the shell does: windows with their options, the tray and its menu, IPC
 * handlers, permission handlers, links handed to the OS, dialogs, quit and exit.
 *
 * It speaks Electron 45's API shapes and keeps the documented rules the shell must live with: no
 * BrowserWindow, Tray, screen or session before 'ready'; `app.setPath` throws for a folder that does not
 * exist; `app.quit()` emits 'before-quit' (cancellable), closes every window (each 'close' cancellable),
 * then 'will-quit' and 'quit'; closing the last window quits unless 'window-all-closed' is listened to;
 * a second `ipcMain.handle` for one channel throws; `app.dock` exists on macOS only.
 *
 * Test drivers (not Electron API) are marked "Test:". One double per process: electron-store imports
 * `electron` natively (it is not transformed by vitest), so a loader hook hands it the same objects.
 */
import { EventEmitter } from 'node:events';
import { register } from 'node:module';
import { DoubleBrowserWindow, electronApp } from './electron-double/app-windows.js';
import { DoubleIpcMain, DoubleMenu, DoubleMenuItem, DoubleNativeImage, DoubleSession, DoubleTray } from './electron-double/tray-ipc.js';
import { createWorld, current, record, requireReady, type DoubleSetup } from './electron-double/world.js';

export * from './electron-double/app-windows.js';
export * from './electron-double/tray-ipc.js';
export { callsTo, DoubleEvent, until, type DoubleSetup, type RecordedCall, type Rectangle } from './electron-double/world.js';

const defaultSession = new DoubleSession();
const display = { id: 1, bounds: { x: 0, y: 0, width: 1920, height: 1080 }, workArea: { x: 0, y: 0, width: 1920, height: 1040 }, scaleFactor: 1 };
let clipboardText = '';

const nativeTheme = Object.assign(new EventEmitter(), { shouldUseDarkColors: false, themeSource: 'system' });

/** The module as `import ... from 'electron'` sees it in the main process (the members the shell uses). */
export const electronModule = {
  app: electronApp,
  BrowserWindow: DoubleBrowserWindow,
  Tray: DoubleTray,
  Menu: DoubleMenu,
  MenuItem: DoubleMenuItem,
  ipcMain: new DoubleIpcMain(),
  nativeImage: { createFromPath: (path: string) => new DoubleNativeImage(path) },
  nativeTheme,
  screen: {
    getPrimaryDisplay: () => (requireReady('screen'), display),
    getAllDisplays: () => (requireReady('screen'), [display]),
  },
  session: {
    get defaultSession(): DoubleSession {
      requireReady('session');
      return defaultSession;
    },
  },
  shell: {
    openExternal: (url: string, options?: unknown) => (record('shell.openExternal', url, options), Promise.resolve()),
    showItemInFolder: (path: string) => record('shell.showItemInFolder', path),
    openPath: (path: string) => (record('shell.openPath', path), Promise.resolve('')),
  },
  dialog: {
    showMessageBox: (options: unknown) => {
      record('dialog.showMessageBox', options);
      return Promise.resolve({ response: current().setup.messageBoxResponse ?? 0, checkboxChecked: false });
    },
    showErrorBox: (title: string, content: string) => record('dialog.showErrorBox', title, content),
  },
  clipboard: {
    writeText: (text: string) => {
      clipboardText = text;
      record('clipboard.writeText', text);
    },
    readText: () => clipboardText,
  },
};
export type ElectronDouble = typeof electronModule;

const GLOBAL_KEY = 'spillway.electron-double';

/** The module the loader hook serves to native imports of 'electron' (electron-store's). */
const nativeModule = `const d = globalThis[Symbol.for(${JSON.stringify(GLOBAL_KEY)})];
if (!d) throw new Error('The electron double is not installed');
export default d;
export const { ${Object.keys(electronModule).join(', ')} } = d;`;

const hooks = `export async function resolve(specifier, context, next) {
  if (specifier === 'electron') return { url: ${JSON.stringify(`data:text/javascript,${encodeURIComponent(nativeModule)}`)}, shortCircuit: true };
  return next(specifier, context);
}`;

/** Installs the double for this process; vitest's `vi.mock('electron')` and native imports then get it. */
export function installElectronDouble(setup: DoubleSetup): ElectronDouble {
  createWorld(setup);
  Object.assign(globalThis, { [Symbol.for(GLOBAL_KEY)]: { ...electronModule, default: electronModule } });
  register(`data:text/javascript,${encodeURIComponent(hooks)}`);
  return electronModule;
}

/** The installed double (for the `vi.mock('electron', ...)` factory). */
export function installedElectron(): ElectronDouble & { default: ElectronDouble } {
  current();
  return { ...electronModule, default: electronModule };
}
