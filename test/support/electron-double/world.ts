/** The electron double's shared state (see ../electron-double.ts): what was recorded, and the change signal. */
import { EventEmitter } from 'node:events';

/** Electron's preventable Event (app, window and webContents events). */
export class DoubleEvent {
  defaultPrevented = false;
  preventDefault(): void {
    this.defaultPrevented = true;
  }
}

export interface DoubleSetup {
  /** What `app.getPath` answers ('userData' follows `setPath`). */
  paths: { home: string; appData: string; temp: string };
  /** `app.getAppPath()`: the folder of package.json. */
  appPath: string;
  /** False when another instance already holds the single-instance lock. */
  primaryInstance?: boolean;
  /** The button `dialog.showMessageBox` resolves with. */
  messageBoxResponse?: number;
}

/** One recorded call into Electron that leaves the app (a link opened, a dialog, text copied, a quit). */
export interface RecordedCall {
  api: string;
  args: unknown[];
}

export interface World {
  setup: DoubleSetup;
  calls: RecordedCall[];
  changes: EventEmitter;
  ready: boolean;
}

let world: World | undefined;

/** Starts the one world of this process. */
export function createWorld(setup: DoubleSetup): void {
  if (world) throw new Error('One electron double per process');
  world = { setup, calls: [], changes: new EventEmitter(), ready: false };
  world.changes.setMaxListeners(0);
}

export const current = (): World => {
  if (!world) throw new Error('The electron double is not installed (installElectronDouble)');
  return world;
};
export const record = (api: string, ...args: unknown[]) => {
  current().calls.push({ api, args });
  changed();
};
export const changed = () => current().changes.emit('change');
export const requireReady = (what: string) => {
  if (!current().ready) throw new Error(`Cannot create ${what} before app is ready`);
};

export interface Rectangle {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Test: every recorded call to `api` (e.g. 'shell.openExternal'). */
export function callsTo(api: string): unknown[][] {
  return current()
    .calls.filter((c) => c.api === api)
    .map((c) => c.args);
}

/**
 * Test: resolves once `check` returns a value other than undefined/false, re-checked on every change the
 * double records (the shell reacting to the hub shows up as one); `what` names it if the bound passes.
 */
export function until<T>(check: () => T | undefined | false, what: string, boundMs = 20_000): Promise<T> {
  const { changes } = current();
  return new Promise((resolve, reject) => {
    const attempt = () => {
      let value: T | undefined | false;
      try {
        value = check();
      } catch {
        value = undefined;
      }
      if (value === undefined || value === false) return false;
      cleanup();
      resolve(value);
      return true;
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`Timed out waiting for ${what}`));
    }, boundMs);
    const cleanup = () => {
      clearTimeout(timer);
      changes.off('change', attempt);
    };
    changes.on('change', attempt);
    attempt();
  });
}
