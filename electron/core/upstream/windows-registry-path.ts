/**
 * The PATH Windows gives a program started now (audit s12, plat item 2). A running app keeps the PATH it
 * started with: what the Node.js, uv or Docker Desktop installer added since is in the registry only, so
 * "install it, then add the server again" failed until Spillway restarted. Read with `reg query`, as
 * Explorer builds it: the system Path, then the user Path, %VARS% expanded in REG_EXPAND_SZ values.
 */
import { win32 } from 'node:path';
import type { EnvLike, RunProgram } from './child-env.js';

const SYSTEM_KEY = 'HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment';
const USER_KEY = 'HKCU\\Environment';

export interface WindowsRegistryPathOptions {
  /** The app's own environment: %VARS% expand from it, and its PATH entries are kept after the registry's. */
  env: EnvLike;
  run: RunProgram;
  /** Default 3000: reg.exe answers in milliseconds; a hung one must not hold up server starts. */
  timeoutMs?: number;
}

/** A variable of a Windows environment, whatever the case of its name. */
export function windowsEnvValue(env: EnvLike, name: string): string | undefined {
  const upper = name.toUpperCase();
  const key = Object.keys(env).find((k) => k.toUpperCase() === upper);
  return key === undefined ? undefined : env[key];
}

/**
 * The registry's system and user Path, followed by the entries of the app's own PATH the registry does
 * not have (a launcher may have added some). Undefined when neither could be read.
 */
export async function readWindowsRegistryPath(options: WindowsRegistryPathOptions): Promise<string | undefined> {
  const { env, run, timeoutMs = 3000 } = options;
  // By its full path: a reg.exe in the current folder or early on the PATH is not the one wanted.
  const systemRoot = windowsEnvValue(env, 'SystemRoot');
  const reg = systemRoot ? win32.join(systemRoot, 'System32', 'reg.exe') : 'reg.exe';
  const query = (key: string) =>
    run(reg, ['query', key, '/v', 'Path'], { env, timeoutMs }).then(
      (out) => parseRegQueryPath(out, env),
      () => undefined, // no such value (a user without a Path of their own), or reg failed
    );
  const [system, user] = await Promise.all([query(SYSTEM_KEY), query(USER_KEY)]);
  if (system === undefined && user === undefined) return undefined;
  return joinWindowsPaths([system ?? '', user ?? '', windowsEnvValue(env, 'PATH') ?? '']);
}

/**
 * The Path value in `reg query <key> /v Path` output, e.g.
 * `    Path    REG_EXPAND_SZ    %USERPROFILE%\.dotnet\tools;C:\Users\ana\.local\bin`. Undefined when absent.
 */
export function parseRegQueryPath(output: string, env: EnvLike): string | undefined {
  for (const line of output.split(/\r?\n/)) {
    const match = /^\s+path\s+(REG_EXPAND_SZ|REG_SZ)(?:\s+(.*?))?\s*$/i.exec(line);
    if (!match) continue;
    const value = match[2] ?? '';
    return match[1].toUpperCase() === 'REG_EXPAND_SZ' ? expandWindowsVars(value, env) : value;
  }
  return undefined;
}

/** %NAME% replaced by its value; an unknown name stays as written, as Windows leaves it. */
export function expandWindowsVars(value: string, env: EnvLike): string {
  return value.replace(/%([^%;]+)%/g, (whole, name: string) => windowsEnvValue(env, name) ?? whole);
}

/**
 * Path lists joined with ";", each folder once (compared as Windows does: case and a trailing "\" aside).
 * A folder with U+FFFD is dropped: reg.exe writes in the console's code page, so a non-ASCII folder name
 * may arrive garbled; the app's own PATH still has it right when it was there at start.
 */
export function joinWindowsPaths(lists: readonly string[]): string {
  const seen = new Set<string>();
  const folders: string[] = [];
  for (const list of lists) {
    for (const raw of list.split(';')) {
      const folder = raw.trim();
      if (!folder || folder.includes('\uFFFD')) continue;
      const key = folder.replace(/[\\/]+$/, '').toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      folders.push(folder);
    }
  }
  return folders.join(';');
}
