/**
 * What a hub leaves in its data folder about itself (files/hub-identity.ts): that it runs, where, on which
 * config file — and when its start failed, why, in the app's event log too. A bridge that started the hub
 * reads the failure and hands it to its client (issue 13, item 1) instead of waiting for a hub that will
 * never come; the event log shows it in the Activity view once the hub runs again. And `hub.lock`, the
 * claim a hub takes on the folder before it opens a store (claimDataFolder).
 */
import { chmod, mkdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { defaultConfig } from '../../../shared/config.js';
import { answers, SocketInUseError } from '../downstream/socket-endpoint.js';
import type { AppPaths } from '../files/app-paths.js';
import { httpHubAt, readHubId, readHubRecord, writeHubRecord, type HubRecord } from '../files/hub-identity.js';

const record = (paths: AppPaths, state: HubRecord['state'], extra: Partial<HubRecord> = {}): HubRecord => ({
  state,
  pid: process.pid,
  // Absolute: a bridge started from anywhere must find the same file.
  configFile: resolve(paths.configFile),
  at: new Date().toISOString(),
  ...extra,
});

/** The hub serves `url` (and the bridge socket) on its config file. */
export async function recordHubRunning(paths: AppPaths, url: string): Promise<void> {
  await writeHubRecord(paths.dataDir, record(paths, 'running', { url }));
}

/** The hub stopped; the record keeps its config file for the next start. */
export async function recordHubStopped(paths: AppPaths): Promise<void> {
  const current = await readHubRecord(paths.dataDir);
  if (current && current.pid !== process.pid) return;
  await writeHubRecord(paths.dataDir, record(paths, 'stopped'));
}

/** One line saying why the hub could not start, naming the config field and file when the config is at fault. */
export function startErrorMessage(error: unknown, paths: AppPaths): string {
  const e = error as NodeJS.ErrnoException & { file?: string; port?: number };
  if (e?.name === 'ConfigError') return e.file ? e.message : `${e.message} (${resolve(paths.configFile)})`;
  if (e?.code === 'EADDRINUSE')
    return `port ${e.port ?? ''} is already in use (is another Spillway running?). Set another port in ${resolve(paths.configFile)}.`;
  return e instanceof Error ? e.message : String(error);
}

/**
 * Records a failed start: an error event in the app's event log, and the failure in hub.json (unless a
 * hub that is still alive runs here: its record stays). Never throws; returns the message.
 */
export async function recordStartFailure(paths: AppPaths, error: unknown): Promise<string> {
  const message = startErrorMessage(error, paths);
  try {
    const { EventLog } = await import('../log/event-log.js');
    // The config could not be read, so its retention setting cannot be either: the default applies.
    const log = new EventLog({ dir: paths.logDir, retentionDays: defaultConfig().settings.logRetentionDays });
    log.emit({ type: 'log', level: 'error', message: `Spillway could not start: ${message}` });
    await log.close();
  } catch {
    /* the log is best effort here: the message still reaches stderr and hub.json */
  }
  try {
    const current = await readHubRecord(paths.dataDir);
    if (!(await anotherHubRuns(paths.dataDir, current))) await writeHubRecord(paths.dataDir, record(paths, 'failed', { error: message }));
  } catch {
    /* a folder that cannot be written: the caller reports the start error anyway */
  }
  return message;
}

/**
 * Whether the hub in `current` still runs. Its pid alone proves little: a hub that never ran its quit
 * (killed, or Windows logging off, where Electron emits no before-quit) leaves "running" behind, and the pid
 * may belong to another program by now. So the hub must answer at its endpoint with this folder's proof.
 */
async function anotherHubRuns(dataDir: string, current: HubRecord | undefined): Promise<boolean> {
  if (current?.state !== 'running' || current.pid === process.pid || !processAlive(current.pid) || !current.url) return false;
  const id = await readHubId(dataDir);
  return id !== undefined && (await provesAt(current.url, id));
}

/** Asks `/hub-identity` at the recorded endpoint (loopback only: the record is a hint, never trusted). */
async function provesAt(url: string, id: string): Promise<boolean> {
  try {
    return new URL(url).hostname === '127.0.0.1' && (await httpHubAt(url, id)) === 'ours';
  } catch {
    return false; // not an address
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Held by the hub of a data folder from before it opens a store until it has stopped: its pid. */
export const HUB_LOCK_FILE = 'hub.lock';

/**
 * How long a lock whose process lives counts on its own. A start (stores, endpoint, socket, hub.json)
 * takes seconds, and a hub that runs proves itself at its endpoint or socket; past this the pid may belong
 * to another program by now (the hub was killed, or the machine restarted), and the lock is left behind.
 */
const LOCK_START_WINDOW_MS = 60_000;

/** Another hub holds the data folder's lock: it is starting there (its endpoint and socket are not up yet). */
export class HubStartingError extends SocketInUseError {
  constructor(file: string, pid: number | undefined) {
    super(file);
    this.message =
      `Another Spillway hub is already running for this data folder (${pid === undefined ? 'another process' : `process ${pid}`} is starting it). ` +
      'If it does not respond, quit it (or end its process) and try again.';
  }
}

/** The data folder, claimed for this process's hub. */
export interface DataFolderClaim {
  /** Gives the folder up (once the hub has stopped): removes the lock if it is still this process's. */
  release(): Promise<void>;
}

/**
 * Claims the data folder for a hub about to open its stores, or throws SocketInUseError when another hub
 * serves it or is starting on it. Opening them is not harmless: the spill store's start-up cleanup empties
 * spill/.raw and removes result folders its copy of the index does not list yet, which would be the
 * running hub's newest results. So this runs first: the hub proven at the endpoint hub.json names, the
 * bridge socket answering at `socketPath`, then the lock, taken with an exclusive create. The folder is
 * made owner-only then (ownerOnly).
 */
export async function claimDataFolder(paths: AppPaths, socketPath: string): Promise<DataFolderClaim> {
  const current = await readHubRecord(paths.dataDir);
  if (current?.url && (await anotherHubRuns(paths.dataDir, current))) throw new SocketInUseError(current.url);
  if (await answers(socketPath)) throw new SocketInUseError(socketPath);
  const file = join(paths.dataDir, HUB_LOCK_FILE);
  await mkdir(paths.dataDir, { recursive: true, mode: 0o700 });
  await ownerOnly(paths);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await writeFile(file, `${process.pid}\n`, { mode: 0o600, flag: 'wx' });
      return { release: () => releaseLock(file) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = await lockHolder(file);
    // This process's own: a start retried on a free port (headless.ts), or a hub started again in-process.
    if (holder.pid === process.pid) return { release: () => releaseLock(file) };
    if (holder.live) throw new HubStartingError(file, holder.pid);
    // Left by a hub that is gone: removed, and the exclusive create tried again.
    await unlink(file).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }
  throw new HubStartingError(file, undefined);
}

/**
 * Makes the data folder, and the event log's and ledger's folders in it, owner-only (0700): they hold
 * tool arguments, results and counts. The bridge socket's folder is tightened on its own, but a data
 * folder with a long path has its socket in /tmp/spillway-<uid>, so this is done here whatever the socket
 * path. Files made before stay as they were, out of reach of other users behind the folder. Not on Windows,
 * where chmod sets only the read-only flag (the folder keeps the access list of the user's profile).
 */
async function ownerOnly(paths: AppPaths): Promise<void> {
  if (process.platform === 'win32') return;
  for (const dir of [paths.dataDir, paths.logDir, paths.ledgerDir]) {
    // Best effort, never a reason not to start: a folder not made yet (logs/, ledger/: made owner-only
    // then), another user's folder (its modes are theirs), a file system without modes (ENOTSUP).
    await chmod(dir, 0o700).catch(() => undefined);
  }
}

/**
 * Who holds the lock, and whether that still counts: a young lock counts while its process lives, or
 * while its pid cannot be read yet (the holder has created the file and is writing it).
 */
async function lockHolder(file: string): Promise<{ pid: number | undefined; live: boolean }> {
  const [text, info] = await Promise.all([readFile(file, 'utf8').catch(() => ''), stat(file).catch(() => undefined)]);
  if (!info) return { pid: undefined, live: false };
  const pid = /^\d+$/.test(text.trim()) ? Number(text.trim()) : undefined;
  const young = Date.now() - info.mtimeMs < LOCK_START_WINDOW_MS;
  return { pid, live: young && (pid === undefined || processAlive(pid)) };
}

async function releaseLock(file: string): Promise<void> {
  const text = await readFile(file, 'utf8').catch(() => '');
  if (text.trim() === String(process.pid)) await unlink(file).catch(() => undefined);
}
