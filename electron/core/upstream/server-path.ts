/**
 * The PATH stdio servers start with, and the one the catalog's runtime check looks in: one source, so
 * "uvx is missing" is said exactly when a server started with uvx would not be found (audit s12, plat).
 *
 * A GUI-launched app's own PATH is not the user's: launchd gives a Finder or Dock launch
 * /usr/bin:/bin:/usr/sbin:/sbin, without Homebrew, ~/.local/bin (uv) or /usr/local/bin (Docker Desktop),
 * and on Windows a running app's PATH lacks what installers added since it started. So for GUI launches
 * the PATH is read as a fresh login gets it (the login shell's on macOS and Linux, the registry's on
 * Windows), and read again after a while, so that "install it, then add the server again" works
 * without restarting Spillway.
 */
import { readLoginShellPath, runProgram, type EnvLike, type RunProgram } from './child-env.js';
import { readWindowsRegistryPath, windowsEnvValue } from './windows-registry-path.js';

/** How long one read serves server starts: a slow rc file is not run again for every start. */
export const SERVER_PATH_MAX_AGE_MS = 30_000;

export interface ServerPathOptions {
  platform: NodeJS.Platform;
  /** The app's own environment. */
  env: EnvLike;
  /** Read the PATH a fresh login gets (GUI launches); without it, servers get the app's own PATH. */
  fresh: boolean;
  /** Injected for tests (the shell, or reg.exe); defaults to execFile. */
  run?: RunProgram;
  /** Injected for tests. */
  now?: () => number;
}

export interface ServerPathRead {
  /** Read it again now, whatever the age of the last read (the runtime check: an install since must count). */
  reread?: boolean;
}

export class ServerPath {
  readonly #options: ServerPathOptions;
  #last: { at: number; path: Promise<string | undefined> } | undefined;

  constructor(options: ServerPathOptions) {
    this.#options = options;
  }

  /** The PATH that replaces the app's own when a server starts, or undefined to keep the app's own. */
  replacement(read: ServerPathRead = {}): Promise<string | undefined> {
    if (!this.#options.fresh) return Promise.resolve(undefined);
    const now = (this.#options.now ?? Date.now)();
    // Concurrent starts share one read: the promise is kept, not its value.
    if (read.reread || !this.#last || now - this.#last.at >= SERVER_PATH_MAX_AGE_MS) this.#last = { at: now, path: this.#read() };
    return this.#last.path;
  }

  /** The PATH servers start with: the replacement, else the app's own. */
  async current(read: ServerPathRead = {}): Promise<string | undefined> {
    const { platform, env } = this.#options;
    return (await this.replacement(read)) ?? (platform === 'win32' ? windowsEnvValue(env, 'PATH') : env.PATH);
  }

  #read(): Promise<string | undefined> {
    const { platform, env, run = runProgram } = this.#options;
    if (platform === 'win32') return readWindowsRegistryPath({ env, run });
    return readLoginShellPath({ platform, env, timeoutMs: 5000, run });
  }
}
