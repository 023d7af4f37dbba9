/**
 * Whose entry is it, and will it last (issue 13, items 5 and 6). Several Spillways may run on one machine
 * (another data folder, a `serve --port 0` for a test): each may write and repair only the entries it
 * wrote, and none may write an HTTP entry with a port that dies with it.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { posix, win32 } from 'node:path';
import { defaultDataDir } from '../files/app-paths.js';
import type { ServerSpec } from './types.js';

/** Where HTTP clients reach this hub now, and why an entry with that URL would not survive a restart. */
export interface HubEndpoint {
  url: string;
  /** Set when the port is not the one the hub will listen on next time: the reason, for the user. */
  unstable?: string;
}

/** An HTTP entry was asked for while the hub's port is not a lasting one (the control API answers `unavailable`). */
export class UnstableEndpointError extends Error {
  override readonly name = 'UnstableEndpointError';
}

/**
 * The endpoint of a hub listening on `listening` that will ask for `next` at its next start (the
 * `--port` it was given, else the configured port; 0 = a free one picked at each start). `taken`: this
 * run asked for `next`, found it taken by another program and listens on a free one instead.
 */
export function hubEndpoint(listening: number, next: number, taken = false): HubEndpoint {
  const url = `http://127.0.0.1:${listening}/mcp`;
  if (taken) {
    return {
      url,
      unstable:
        `Spillway's port ${next} is taken by another program, so Spillway listens on port ${listening} for this run only, ` +
        `and an entry written with it would stop working when Spillway restarts. Close the program that uses port ${next} ` +
        `(or choose another port in Settings), restart Spillway, then connect again.`,
    };
  }
  if (next === 0) {
    const now = listening ? ` (port ${listening} for this run only)` : '';
    return {
      url,
      unstable:
        `Spillway's port is picked at random at each start (port 0)${now}, so an entry written with it would stop working ` +
        `when Spillway restarts. Set a fixed port (in Settings, or \`spillway serve --port N\`), then connect again.`,
    };
  }
  if (next === listening) return { url };
  return {
    url,
    unstable:
      `Spillway listens on port ${listening} but will use port ${next} from its next start, so an entry written now ` +
      `would stop working then. Restart Spillway, then connect again.`,
  };
}

/** The bearer token of an HTTP entry's headers (any spelling of Authorization). */
export function bearerOf(spec: ServerSpec): string | undefined {
  for (const [name, value] of Object.entries(spec.headers ?? {})) {
    if (name.toLowerCase() !== 'authorization') continue;
    const m = /^Bearer\s+(.+)$/i.exec(value.trim());
    if (m) return m[1].trim();
  }
  return undefined;
}

/** The data folder a bridge entry names (`--data-dir DIR` or `--data-dir=DIR`). */
function dataDirOf(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--data-dir') return args[i + 1];
    if (args[i].startsWith('--data-dir=')) return args[i].slice('--data-dir='.length);
  }
  return undefined;
}

/**
 * Whether two spellings name one data folder on `platform`. Windows and macOS file systems ignore case by
 * default, and on Windows the bridge's pipe name is made from the lower-cased path (socketPathFor), so
 * `C:\Users\Jo\Spillway` and `c:\users\jo\spillway` reach one hub there.
 */
function sameDataDir(a: string, b: string, platform: NodeJS.Platform): boolean {
  if (platform === 'win32') return win32.resolve(a).toLowerCase() === win32.resolve(b).toLowerCase();
  if (platform === 'darwin') return posix.resolve(a).toLowerCase() === posix.resolve(b).toLowerCase();
  return posix.resolve(a) === posix.resolve(b);
}

/**
 * Whether an entry was written from this data folder: an HTTP entry carries the token this folder gave
 * that client (or, given `revokedHere`, one it gave and revoked since: an entry put back after Disconnect),
 * a bridge entry names this folder (compared as `platform`'s file system compares paths). Anything else
 * belongs to another Spillway (or to the user): drift repair leaves it byte for byte, and Restore does not
 * take it back.
 */
export function writtenFrom(
  spec: ServerSpec,
  here: {
    dataDir: string;
    platform: NodeJS.Platform;
    clientToken: string | undefined;
    revokedHere?: (token: string) => boolean;
  },
): boolean {
  if (spec.transport === 'stdio') {
    const dir = dataDirOf(spec.args ?? []);
    return dir !== undefined && sameDataDir(dir, here.dataDir, here.platform);
  }
  const token = bearerOf(spec);
  if (token === undefined) return false;
  return (here.clientToken !== undefined && token === here.clientToken) || (here.revokedHere?.(token) ?? false);
}

/** Spellings of this machine in a URL: `0.0.0.0` and `[::]` reach a hub listening on loopback too. */
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '0.0.0.0', '[::]']);

/**
 * Whether an entry is one a Spillway wrote, this data folder's or another's: the bridge (its `bridge`
 * command) or a hub's local address (`http://127.0.0.1:PORT/mcp`). A "spillway" server the user added
 * themselves (another program of that name) is neither: connect does not replace it, disconnect does not
 * remove it. Another Spillway's entry is still replaced when the user connects here on purpose.
 */
export function madeBySpillway(spec: ServerSpec): boolean {
  if (spec.transport === 'stdio') return (spec.args ?? []).includes('bridge');
  if (!spec.url) return false;
  try {
    const url = new URL(spec.url);
    return url.protocol === 'http:' && LOOPBACK.has(url.hostname) && url.pathname === '/mcp';
  } catch {
    return false;
  }
}

/** What tells this hub apart: where it listens, its data folder, and the command its bridge entries run. */
export interface HubIdentity {
  url: string;
  dataDir: string;
  platform: NodeJS.Platform;
  /** The command of this app's bridge entries (the app's own executable, or the AppImage). */
  bridgeCommand?: string;
  /**
   * The data folder a bridge that names none reaches (no `--data-dir`, no SPILLWAY_DATA_DIR). Unset: the
   * default one for this user (app-paths.ts defaultDataDir), whatever folder this hub runs on.
   */
  defaultDataDir?: string;
}

/** Whether a command names Spillway's CLI (`spillway`, `spillway.cmd`) or its script (`.../spillway.js`). */
function spillwayCommand(part: string): boolean {
  return /^spillway(\.(exe|cmd|js))?$/i.test(part.split(/[\\/]/).pop() ?? '');
}

/**
 * Whether a server is this hub itself: an address on this machine with the hub's port and its `/mcp` path
 * (a `?token=` added or not), or a bridge to this data folder. A bridge's folder is the one its
 * `--data-dir` names, else its env's SPILLWAY_DATA_DIR (as the CLI reads them, app-paths.ts
 * resolvePaths), else the default data folder; with none named, only Spillway's own command or script run
 * as `bridge` counts. Run as one of its own upstreams, the hub would call itself. Another program's local
 * address (a server on another port) or a bridge to another data folder is not this hub.
 */
export function isThisHub(
  server: { command?: string; args?: readonly string[]; env?: Readonly<Record<string, string>>; url?: string },
  hub: HubIdentity,
): boolean {
  if (server.command !== undefined) {
    const args = server.args ?? [];
    if (!args.includes('bridge')) return false;
    const dir = dataDirOf(args) || server.env?.SPILLWAY_DATA_DIR;
    if (dir) return sameDataDir(dir, hub.dataDir, hub.platform);
    // Without one, only what is plainly Spillway (`node other-server.js bridge` is not, even when this hub's bridge runs node).
    const spillway = [server.command, ...args].some(spillwayCommand) || (server.command === hub.bridgeCommand && /spillway/i.test(server.command));
    const usual = hub.defaultDataDir ?? defaultDataDir({ home: homedir(), platform: hub.platform, env: process.env });
    return spillway && sameDataDir(usual, hub.dataDir, hub.platform);
  }
  if (!server.url) return false;
  try {
    const url = new URL(server.url);
    const own = new URL(hub.url);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      LOOPBACK.has(url.hostname) &&
      url.port === own.port &&
      url.pathname.replace(/\/$/, '') === own.pathname
    );
  } catch {
    return false;
  }
}

/**
 * Why a bridge entry of another data folder cannot work, for the start-up repair to say (it repairs only its
 * own folder's entries): the folder it names is gone, as when the data folder was moved (its bridge refuses
 * to start a new, empty Spillway there). Undefined for any other entry.
 */
export async function missingDataDir(spec: ServerSpec, app: string, here: string): Promise<string | undefined> {
  if (spec.transport !== 'stdio' || !madeBySpillway(spec)) return undefined;
  const dir = dataDirOf(spec.args ?? []);
  if (dir === undefined || existsSync(dir)) return undefined;
  return (
    `its entry (in ${spec.file}) starts Spillway from the data folder ${dir}, which no longer exists (moved or deleted?), ` +
    `so ${app} gets no servers. Connect ${app} again in Spillway (Clients → Connect), so it uses ${here}.`
  );
}
