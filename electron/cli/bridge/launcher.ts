import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, fstatSync, openSync, watch, type FSWatcher } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { runningAppImage } from '../../core/files/app-image.js';
import { HUB_RECORD_FILE, readHubRecord } from '../../core/files/hub-identity.js';
import { hubEnv } from './hub-env.js';

/** A hub being started. */
export interface HubStart {
  /** Resolves with the hub's own start error once it failed (it ended, or recorded a failure); pending while it may still come up. */
  readonly failed: Promise<string>;
  /** Stops watching the start (a hub answered). */
  dispose(): void;
}

/** Starts the hub when none answers. The packaged app passes one that launches the app itself. */
export type HubLauncher = () => HubStart | void | Promise<HubStart | void>;

export const AUTOSTART_LOG = 'hub-autostart.log';
/** How much of what a failed hub printed is read back for its reason. */
const TAIL_BYTES = 8 * 1024;

export interface HubLauncherOptions {
  dataDir: string;
  execPath: string;
  script: string;
  /** The bridge's environment; the hub gets only part of it (see hub-env.ts). */
  env: NodeJS.ProcessEnv;
  /** The config file the hub must run: the one given to the bridge, else the one this folder's hub last ran (issue 13, item 4). */
  configFile?: () => Promise<string | undefined>;
}

/**
 * Starts a hub for this data folder, detached so it outlives the bridge. Inside the app's executable
 * (ELECTRON_RUN_AS_NODE set) that is the app itself (appLaunch); under Node `spillway serve` from this
 * CLI, on a free port when its own is taken (the bridge reaches it over the socket). What it prints goes to
 * `hub-autostart.log`; when it fails, the returned start says why in its own words (issue 13, item 1).
 */
export function hubLauncher(options: HubLauncherOptions): HubLauncher {
  return async () => {
    const configFile = await options.configFile?.();
    // Inside the app's executable the bridge runs as Node (ELECTRON_RUN_AS_NODE); hubEnv drops that, so the app starts as itself.
    const inApp = Boolean(options.env.ELECTRON_RUN_AS_NODE);
    const env = hubEnv(options.env);
    const logFile = join(options.dataDir, AUTOSTART_LOG);
    const out = openSync(logFile, 'a', 0o600);
    let child: ChildProcess;
    let from: number;
    try {
      from = fstatSync(out).size;
      const config = configFile ? ['--config', configFile] : [];
      const { command, args } = inApp
        ? appLaunch(options.execPath, options.script, options.env)
        : { command: options.execPath, args: [options.script, 'serve', '--data-dir', options.dataDir, '--port-fallback', ...config] };
      child = spawn(command, args, {
        detached: true,
        stdio: ['ignore', out, out],
        // The desktop app reads its config file from SPILLWAY_CONFIG (it takes no such argument).
        env: { ...env, SPILLWAY_DATA_DIR: options.dataDir, ...(configFile ? { SPILLWAY_CONFIG: configFile } : {}) },
        windowsHide: true,
      });
      child.unref();
    } finally {
      closeSync(out);
    }
    return watchStart(child, options.dataDir, logFile, from);
  };
}

/**
 * What the app takes to start in the tray without opening its window, as from the login item
 * (electron/main/login-item.ts HIDDEN_ARG). An AI app starting it to serve its client did not ask for the
 * window; the user opens it from the tray.
 */
const HIDDEN_ARG = '--hidden';

/**
 * How a bridge running as Node in the app's executable starts the app, in the tray (HIDDEN_ARG). From an
 * AppImage, the AppImage file (a run with its own mount, which outlives this bridge's, and which knows it
 * is an AppImage: the entries it writes name that file, see app-image.ts runningAppImage; its AppRun
 * passes the arguments on); packaged otherwise, the executable. Unpacked (`npm start`: the script is the
 * repo's, not the copy under app.asar.unpacked), Electron with the app folder, two above
 * electron/cli/spillway.js: without it Electron starts its default app.
 */
export function appLaunch(execPath: string, script: string, env: Readonly<Record<string, string | undefined>>): { command: string; args: string[] } {
  const appImage = runningAppImage(execPath, env);
  if (appImage) return { command: appImage, args: [HIDDEN_ARG] };
  if (/[\\/]app\.asar\.unpacked[\\/]/.test(script)) return { command: execPath, args: [HIDDEN_ARG] };
  return { command: execPath, args: [resolve(dirname(script), '..', '..'), HIDDEN_ARG] };
}

function watchStart(child: ChildProcess, dataDir: string, logFile: string, from: number): HubStart {
  let settle!: (why: string) => void;
  const failed = new Promise<string>((resolve) => (settle = resolve));
  let done = false;
  let watcher: FSWatcher | undefined;
  const finish = (why: string) => {
    if (done) return;
    done = true;
    watcher?.close();
    settle(why);
  };
  const recordedFailure = async () => {
    const record = await readHubRecord(dataDir);
    return record?.state === 'failed' && record.pid === child.pid && record.error ? record.error : undefined;
  };
  child.once('error', (err) => finish(`could not run ${child.spawnfile}: ${err.message}`));
  child.once('exit', (code, signal) => {
    if (done) return;
    void (async () =>
      finish((await recordedFailure()) ?? (await printedReason(logFile, from)) ?? `it exited (${signal ?? `code ${code}`}) before serving`))();
  });
  // The desktop app stays open after a failed start (it shows a dialog): its record says why.
  try {
    watcher = watch(dataDir, (_event, name) => {
      if (name === HUB_RECORD_FILE && !done) void recordedFailure().then((why) => why && finish(why));
    });
    watcher.on('error', () => watcher?.close());
    watcher.unref();
  } catch {
    /* no file watching here: the exit still tells */
  }
  return {
    failed,
    dispose: () => {
      done = true;
      watcher?.close();
    },
  };
}

/** What the hub printed from `from` on: its `spillway: …` lines, else its last lines. */
async function printedReason(logFile: string, from: number): Promise<string | undefined> {
  let text: string;
  try {
    const file = await open(logFile, 'r');
    try {
      const { size } = await file.stat();
      const start = Math.max(from, size - TAIL_BYTES);
      const buffer = Buffer.alloc(size - start);
      await file.read(buffer, 0, buffer.length, start);
      text = buffer.toString('utf8');
    } finally {
      await file.close();
    }
  } catch {
    return undefined;
  }
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const own = lines.filter((l) => l.startsWith('spillway: ')).map((l) => l.slice('spillway: '.length));
  const chosen = own.length > 0 ? own : lines.slice(-3);
  return chosen.length > 0 ? chosen.join(' ') : undefined;
}
