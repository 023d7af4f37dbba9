/**
 * What waits for upstreams to start (issue 13 item 3, issue 18): a session's first tools/list while the
 * servers ready last run are still starting, and a call (or read) of a server known only from its kept
 * lists. Every wait is bounded; the catalog is rebuilt before a waiter resumes, so it sees what it led to.
 */
import type { HubEventInput } from '../../../shared/events.js';
import type { UpstreamPool } from '../upstream/upstream-pool.js';

/** The bound on a session's first tools/list waiting for the upstreams that were ready last run (issue 13, item 3). */
export const FIRST_LIST_WAIT_MS = 5000;
/** The bound on a call of a tool known from the last run waiting for its upstream to start (its default connect timeout). */
export const KEPT_CALL_WAIT_MS = 30_000;

export interface StartupWaitsDeps {
  pool: Pick<UpstreamPool, 'get' | 'whenSettled'>;
  emit: (event: HubEventInput) => void;
  /** Runs a queued catalog rebuild now. */
  flushRebuild: () => void;
  firstListWaitMs?: number;
}

export class StartupWaits {
  /** While upstreams ready last run are still starting: what a session's first tools/list waits for. */
  #startup: { servers: string[]; settled: Promise<void> } | undefined;
  readonly #listedOnce = new WeakSet<object>();
  readonly #firstListWaitMs: number;

  constructor(private readonly deps: StartupWaitsDeps) {
    this.#firstListWaitMs = deps.firstListWaitMs ?? FIRST_LIST_WAIT_MS;
  }

  /** At hub start: these upstreams (ready last run) are starting; sessions' first lists wait for them. */
  begin(awaited: string[]): void {
    if (awaited.length === 0) return;
    const settled = this.#settled(awaited, this.#firstListWaitMs).then(() => {
      this.#startup = undefined;
    });
    this.#startup = { servers: awaited, settled };
  }

  /** A session's first tools/list, while upstreams ready last run are still starting: waits for them. */
  beforeFirstList(session: { clientName?: string }): Promise<void> | undefined {
    const startup = this.#startup;
    if (!startup || this.#listedOnce.has(session)) return undefined;
    this.#listedOnce.add(session);
    const starting = startup.servers.filter((id) => this.deps.pool.get(id)?.status === 'connecting');
    if (starting.length === 0) return undefined;
    const bound = Math.round(this.#firstListWaitMs / 1000);
    const client = session.clientName ? ` of ${session.clientName}` : '';
    this.deps.emit({
      type: 'log',
      level: 'debug',
      message: `tools/list${client} waits up to ${bound} s for ${starting.join(', ')} (ready last run) to start`,
    });
    return startup.settled;
  }

  /**
   * A call of a tool known only from the kept lists: starts its upstream if it is idle (on first use,
   * issue 18), then waits (bounded) for it to start. `onWait` hears what the wait is, in a sentence for
   * the client (its progress notification).
   */
  untilStarted(serverId: string, onWait?: (message: string) => void): Promise<void> {
    const upstream = this.deps.pool.get(serverId);
    // Failed, and waiting out its backoff: nothing is starting, and the call is answered with why at once.
    if (upstream?.status === 'error') return this.#settled([serverId], KEPT_CALL_WAIT_MS);
    const woken = upstream?.wake() === true;
    this.deps.emit({
      type: 'log',
      level: 'info',
      server: serverId,
      message: woken
        ? `"${serverId}" starts for a call (it starts on first use)`
        : `A call waits for "${serverId}" to start (its tools are known from the last run)`,
    });
    onWait?.(woken ? `Starting ${serverId} (it starts on first use)…` : `Waiting for ${serverId} to start…`);
    return this.#settled([serverId], KEPT_CALL_WAIT_MS);
  }

  /** Resolves (bounded) once these upstreams answered and the catalog shows it. */
  async #settled(servers: string[], timeoutMs: number): Promise<void> {
    await this.deps.pool.whenSettled(servers, timeoutMs);
    this.deps.flushRebuild();
  }
}
