/**
 * Which HTTP sessions are closed without their client asking (issue 13, item 9): a client that goes away
 * without DELETE leaves its session behind (its SDK Server, its row in the status) for good. A session is
 * idle while nothing of it is open over HTTP (no request, no GET stream) and no request of it runs. Idle
 * past the timeout, it is closed; past the cap, the least recently used go first: idle ones, then ones
 * whose client only listens on its GET stream. One with a request running is never closed.
 */

export interface HttpSessionLimits {
  /** An idle session is closed after this long (default DEFAULT_IDLE_TIMEOUT_MS). */
  idleTimeoutMs?: number;
  /** At most this many HTTP sessions stay open (default DEFAULT_MAX_SESSIONS). */
  maxSessions?: number;
  /** The clock idle time is measured on, in ms (tests pass their own). */
  now?: () => number;
}

export const DEFAULT_IDLE_TIMEOUT_MS = 30 * 60_000;
export const DEFAULT_MAX_SESSIONS = 200;

export type ReapReason = 'idle' | 'cap';

/** What reaping sees of one HTTP session. */
export interface SessionUse {
  /** HTTP requests of the session still open, its GET streams included. */
  open: number;
  /** GET streams open: the client listens for what the server sends. */
  streams: number;
  /** When a request of the session last came or ended. */
  lastSeenMs: number;
  readonly session: { readonly id: string; readonly inflight: { readonly size: number } };
}

export interface Reap<S extends SessionUse> {
  use: S;
  reason: ReapReason;
  idleMs: number;
}

/**
 * The sessions to close now, idle ones past the timeout first, then as many of the least recently used as
 * bring the count down to the cap. `keep` is never chosen (the session that is opening).
 */
export function sessionsToReap<S extends SessionUse>(
  sessions: Iterable<S>,
  now: number,
  limits: { idleTimeoutMs: number; maxSessions: number },
  keep?: string,
): Reap<S>[] {
  const reaps: Reap<S>[] = [];
  const rest: S[] = [];
  for (const use of sessions) {
    const idleMs = Math.max(0, Math.round(now - use.lastSeenMs));
    if (use.open === 0 && use.session.inflight.size === 0 && idleMs >= limits.idleTimeoutMs && use.session.id !== keep) {
      reaps.push({ use, reason: 'idle', idleMs });
    } else rest.push(use);
  }
  let over = rest.length - limits.maxSessions;
  if (over <= 0) return reaps;
  const candidates = rest
    .filter((use) => use.session.id !== keep && use.session.inflight.size === 0 && use.open === use.streams)
    .sort((a, b) => Number(a.streams > 0) - Number(b.streams > 0) || a.lastSeenMs - b.lastSeenMs);
  for (const use of candidates) {
    if (over-- <= 0) break;
    reaps.push({ use, reason: 'cap', idleMs: Math.max(0, Math.round(now - use.lastSeenMs)) });
  }
  return reaps;
}
