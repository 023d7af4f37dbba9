import { spawnSync, type ChildProcess } from 'node:child_process';
import { signalTree } from './process-group.js';

/** The part of `process` the reaper hooks into; injected so tests can use an EventEmitter. */
export interface ProcessHooks {
  on(event: 'exit', listener: () => void): unknown;
  on(event: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  off(event: 'exit', listener: () => void): unknown;
  off(event: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  listenerCount(event: string): number;
  kill(pid: number, signal?: NodeJS.Signals): unknown;
  readonly pid: number;
}

export interface ChildReaperOptions {
  platform: NodeJS.Platform;
  /** Force-kills a child and what it started; default: SIGKILL, or `taskkill /T /F` on win32. */
  forceKill?: (child: ChildProcess) => void;
}

/**
 * Tracks live upstream children so none outlives the app. Instantiated by the composition root (no
 * module state). How parent death is covered:
 * - normal exit (`process.exit`, app quit, uncaught exception): the 'exit' hook SIGKILLs every child
 *   synchronously — call `installExitHooks(process)` once;
 * - SIGINT/SIGTERM: if nothing else in the app listens for the signal, the hook kills the children
 *   and re-raises the signal so the default exit still happens; if the app handles the signal
 *   itself, it should `await killAll()` (or close the upstream pool) and exit, and 'exit' reaps the rest;
 * - SIGKILL or a crash of the parent: no hook runs, but the children's stdin reaches EOF, on which
 *   well-behaved MCP servers exit (stdio transport spec).
 * On POSIX the children lead their own process groups (process-group.ts), and every signal here goes to
 * the group, so what a wrapper script started goes with it. A terminal's Ctrl-C reaches the app only,
 * which stops its children as above.
 * For a graceful quit, call `killAll()` (or close each transport) before exiting, e.g. in Electron's
 * `before-quit`.
 */
export class ChildReaper {
  readonly #children = new Set<ChildProcess>();
  readonly #forceKill: (child: ChildProcess) => void;
  readonly #platform: NodeJS.Platform;

  constructor(options: ChildReaperOptions) {
    const { platform } = options;
    this.#platform = platform;
    this.#forceKill = options.forceKill ?? ((child) => forceKillChild(child, platform));
  }

  /** Number of children still tracked. */
  get size(): number {
    return this.#children.size;
  }

  /** Tracks a child until it exits; returns a function that stops tracking it. */
  track(child: ChildProcess): () => void {
    if (child.exitCode !== null || child.signalCode !== null) return () => {};
    this.#children.add(child);
    const forget = (): void => {
      this.#children.delete(child);
    };
    child.once('exit', forget);
    return () => {
      child.off('exit', forget);
      forget();
    };
  }

  /** Force-kills every tracked child now, synchronously (safe inside a process 'exit' handler). */
  killAllSync(): void {
    for (const child of this.#children) {
      try {
        this.#forceKill(child);
      } catch {
        // Already gone: nothing to reap.
      }
    }
  }

  /**
   * SIGTERM every child, SIGKILL those still alive after `graceMs`; resolves when all have exited. On
   * win32 the tree kill comes at once: SIGTERM there is TerminateProcess of cmd.exe only, which then
   * reports itself exited while the server it started (npx, then node) keeps running.
   */
  async killAll(graceMs = 2000): Promise<void> {
    const children = [...this.#children];
    await Promise.all(
      children.map(async (child) => {
        const exited = exitOf(child);
        if (this.#platform !== 'win32') {
          try {
            signalTree(child, 'SIGTERM', this.#platform);
          } catch {
            // Already gone.
          }
          if (await settlesWithin(exited, graceMs)) return;
        }
        try {
          this.#forceKill(child);
        } catch {
          // Already gone.
        }
        await exited;
      }),
    );
  }

  /**
   * Hooks `target` (normally `process`): reap on 'exit', and on the given signals when no one else
   * handles them. Returns a function that removes the hooks.
   */
  installExitHooks(target: ProcessHooks, signals: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']): () => void {
    const onExit = (): void => this.killAllSync();
    const onSignal = (signal: NodeJS.Signals): void => {
      // Someone else handles this signal (e.g. a graceful shutdown): leave the exit to them.
      if (target.listenerCount(signal) > 1) return;
      this.killAllSync();
      uninstall();
      target.kill(target.pid, signal); // default action, now that no listener is left
    };
    target.on('exit', onExit);
    for (const signal of signals) target.on(signal, onSignal);
    const uninstall = (): void => {
      target.off('exit', onExit);
      for (const signal of signals) target.off(signal, onSignal);
    };
    return uninstall;
  }
}

/**
 * Kills a child for good, with what it started. On win32 a child started through cmd.exe has the real
 * server as its own child, which TerminateProcess would leave running, so the whole tree goes with
 * taskkill; elsewhere its process group gets SIGKILL.
 */
export function forceKillChild(child: ChildProcess, platform: NodeJS.Platform): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  if (platform === 'win32' && child.pid !== undefined) {
    const result = spawnSync('taskkill', ['/pid', String(child.pid), '/T', '/F'], { windowsHide: true, stdio: 'ignore' });
    if (result.status === 0) return;
  }
  signalTree(child, 'SIGKILL', platform);
}

/** Resolves when the child has exited (at once if it already has). */
export function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
