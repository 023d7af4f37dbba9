import { execFile } from 'node:child_process';

/** An environment as Node hands it over: values may be missing. */
export type EnvLike = Readonly<Record<string, string | undefined>>;

/** The hub's own variables (its token, data folder, config): no concern of the servers it starts. */
const HUB_PREFIX = 'SPILLWAY_';

/**
 * The environment an upstream server starts with: the user's environment without the hub's own
 * SPILLWAY_* variables (a server saw SPILLWAY_TOKEN; audit s11, item 4), plus the configured variables
 * (configured wins, SPILLWAY_* included). `loginShellPath`, when given, replaces PATH — a GUI-launched app
 * inherits launchd's bare PATH, so `npx`/`uvx` from nvm or Homebrew would not be found otherwise (on
 * Windows it is the registry's Path: see server-path.ts).
 * On win32 names compare case-insensitively (`Path` and `PATH` are one variable there).
 */
export function buildChildEnv(
  baseEnv: EnvLike,
  configuredEnv: EnvLike | undefined,
  loginShellPath?: string,
  platform?: NodeJS.Platform,
): Record<string, string> {
  const caseInsensitive = platform === 'win32';
  const env: Record<string, string> = {};
  const set = (name: string, value: string): void => {
    if (caseInsensitive) {
      const upper = name.toUpperCase();
      for (const existing of Object.keys(env)) if (existing.toUpperCase() === upper) delete env[existing];
    }
    env[name] = value;
  };
  const isHubOwn = (name: string) => (caseInsensitive ? name.toUpperCase() : name).startsWith(HUB_PREFIX);
  for (const [name, value] of Object.entries(baseEnv)) if (value !== undefined && !isHubOwn(name)) set(name, value);
  if (loginShellPath) set(pathKeyOf(env, caseInsensitive), loginShellPath);
  for (const [name, value] of Object.entries(configuredEnv ?? {})) if (value !== undefined) set(name, value);
  return env;
}

function pathKeyOf(env: Record<string, string>, caseInsensitive: boolean): string {
  if (!caseInsensitive) return 'PATH';
  return Object.keys(env).find((name) => name.toUpperCase() === 'PATH') ?? 'PATH';
}

/** Runs a program and resolves with its stdout; rejects on failure or timeout. */
export type RunProgram = (file: string, args: readonly string[], options: { env: EnvLike; timeoutMs: number }) => Promise<string>;

export interface LoginShellPathOptions {
  platform: NodeJS.Platform;
  /** The app's own environment: SHELL and HOME come from here. */
  env: EnvLike;
  /** Default 5000: a slow rc file must not hold up server starts for long. */
  timeoutMs?: number;
  /** Injected for tests; defaults to execFile with stdin closed. */
  run?: RunProgram;
}

const MARKER = '__SPILLWAY_PATH_7f3a__';

/**
 * The PATH a login + interactive shell would give the user (`$SHELL -ilc`), read between markers so
 * anything the rc files print is ignored. Undefined on Windows, on failure, or on timeout.
 */
export async function readLoginShellPath(options: LoginShellPathOptions): Promise<string | undefined> {
  const { platform, env, timeoutMs = 5000, run = runProgram } = options;
  if (platform === 'win32') return undefined;
  const shell = env.SHELL || (platform === 'darwin' ? '/bin/zsh' : '/bin/sh');
  try {
    // Separate printf arguments, not "${PATH}": fish has no ${} syntax, and a marker glued to $PATH
    // would be read as part of the variable name.
    const out = await run(shell, ['-ilc', `printf '%s' ${MARKER} "$PATH" ${MARKER}`], { env, timeoutMs });
    const start = out.indexOf(MARKER);
    const end = out.indexOf(MARKER, start + MARKER.length);
    if (start === -1 || end === -1) return undefined;
    const path = out.slice(start + MARKER.length, end).trim();
    return path === '' ? undefined : path;
  } catch {
    return undefined;
  }
}

/** RunProgram with execFile: stdin closed, killed at the timeout, no console window on Windows. */
export const runProgram: RunProgram = (file, args, { env, timeoutMs }) =>
  new Promise((resolve, reject) => {
    const child = execFile(
      file,
      [...args],
      { env: { ...env }, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 4 * 1024 * 1024, windowsHide: true },
      (error, stdout) => (error ? reject(error) : resolve(stdout)),
    );
    // An interactive shell may try to read the terminal; give it EOF instead.
    child.stdin?.end();
  });
