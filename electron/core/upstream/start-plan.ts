/**
 * How a server starts (issue 18): with the hub, or on its first call with its kept lists serving until
 * then, and when it is stopped again for want of calls.
 */
import type { ServerConfig } from '../../../shared/config.js';

/** The idle time after which a server started on first use stops, unless its config says otherwise. */
export const DEFAULT_IDLE_STOP_MINUTES = 10;

export interface StartPlan {
  /** Not started with the hub: its kept lists serve until a call starts it. */
  lazy: boolean;
  /** Stopped after this long without a call (0: never). */
  idleStopMs: number;
}

/**
 * The start mode is the config's, else on first use for stdio servers whose lists are kept. A server
 * on first use whose lists are not kept starts at once (nothing else could list its tools), and is
 * stopped when idle like any other on first use.
 */
export function startPlan(config: ServerConfig, listsKept: boolean): StartPlan {
  const mode = config.startMode ?? (config.type === 'stdio' && listsKept ? 'on-first-use' : 'always');
  if (mode === 'always') return { lazy: false, idleStopMs: 0 };
  return { lazy: listsKept, idleStopMs: (config.idleStopMinutes ?? DEFAULT_IDLE_STOP_MINUTES) * 60_000 };
}

/** True for commands that may download the server on first start. */
export function downloadsOnFirstStart(config: ServerConfig): boolean {
  if (config.type !== 'stdio') return false;
  const base = config.command
    .split(/[\\/]/)
    .pop()!
    .toLowerCase()
    .replace(/\.(cmd|exe|bat)$/, '');
  return ['npx', 'uvx', 'bunx', 'pnpx', 'pipx', 'dlx'].includes(base) || (base === 'pnpm' && config.args[0] === 'dlx');
}
