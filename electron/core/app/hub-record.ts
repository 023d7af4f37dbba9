/**
 * What a hub leaves in its data folder about itself (files/hub-identity.ts): that it runs, where, on which
 * config file — and when its start failed, why, in the app's event log too. A bridge that started the hub
 * reads the failure and hands it to its client (issue 13, item 1) instead of waiting for a hub that will
 * never come; the event log shows it in the Activity view once the hub runs again.
 */
import { resolve } from 'node:path';
import { defaultConfig } from '../../../shared/config.js';
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
 * Whether another hub of this data folder runs, proven at the endpoint its record names: the one check
 * that tells "`spillway serve` holds this folder on the config's port" from a port some other program took.
 */
export async function anotherHubServes(paths: AppPaths): Promise<boolean> {
  try {
    return await anotherHubRuns(paths.dataDir, await readHubRecord(paths.dataDir));
  } catch {
    return false; // no readable record: nothing proves another hub
  }
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
