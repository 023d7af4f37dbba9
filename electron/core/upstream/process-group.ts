/**
 * On POSIX each stdio server runs in its own process group (spawned `detached`, so it leads the group),
 * and signals go to the whole group: a server started through a wrapper (`sh -c`, a launcher script that
 * does not `exec`) would otherwise keep running after the wrapper is gone (audit s11, item 3). Windows has
 * no process groups to signal; there a tree kill (`taskkill /T`) does the same (child-reaper.ts).
 */
import type { ChildProcess } from 'node:child_process';

/** How often a group that was asked to end is checked for members left. */
const GROUP_POLL_MS = 25;

/** Whether children run in their own process group on this platform (all but Windows). */
export function ownProcessGroup(platform: NodeJS.Platform): boolean {
  return platform !== 'win32';
}

/**
 * Sends `signal` to the child's process group, or to the child alone when it leads none (a child spawned
 * without `detached`) or on Windows. Throws only what `child.kill` would.
 */
export function signalTree(child: ChildProcess, signal: NodeJS.Signals, platform: NodeJS.Platform): void {
  if (ownProcessGroup(platform) && child.pid !== undefined && signalGroup(child.pid, signal)) return;
  child.kill(signal);
}

/** Sends `signal` to process group `pgid`; false when there is no such group (or it may not be signalled). */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Ends what is left of a group whose leader has exited: SIGTERM, then SIGKILL after `graceMs` if any
 * member is still there. Resolves once the group is empty (or was already), or after twice `graceMs`.
 * Called right at the leader's exit: a group's id is not reused while it has members.
 */
export async function endGroup(pgid: number, graceMs: number): Promise<void> {
  if (!signalGroup(pgid, 'SIGTERM')) return;
  if (await emptiedWithin(pgid, graceMs)) return;
  signalGroup(pgid, 'SIGKILL');
  // Killed members are gone once reaped by whoever adopted them; bounded, in case no one reaps them.
  await emptiedWithin(pgid, graceMs);
}

async function emptiedWithin(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (signalGroup(pgid, 0)) {
    if (Date.now() >= deadline) return false;
    await pause(GROUP_POLL_MS);
  }
  return true;
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
