/**
 * The upstream pool: one Upstream per configured server, by server id. It adds, replaces, removes and
 * restarts them and reports every status change. The hub owns one pool; the rest of the core reads it as
 * a ReadonlyMap of the upstreams it holds.
 */
import type { ServerConfig } from '../../../shared/config.js';
import type { UpstreamStatus } from '../../../shared/events.js';
import type { StartPlan } from './start-plan.js';
import { Upstream, type UpstreamHooks, type UpstreamOptions } from './upstream.js';

/** One status change of a pooled upstream. */
export interface UpstreamStatusChange {
  server: string;
  status: UpstreamStatus;
  error?: string;
  /** How many tools it lists, when it became ready. */
  tools?: number;
}

export interface UpstreamPoolOptions {
  /** What every upstream reports to (status changes go to `onStatus` instead). */
  hooks: Omit<UpstreamHooks, 'onStatus'>;
  onStatus(change: UpstreamStatusChange): void;
  /** Client info and reconnect tuning for every upstream. */
  upstream: UpstreamOptions;
  /** Whether a server starts now or on its first call, and its idle stop (default: now, never). */
  plan?(id: string, cfg: ServerConfig): StartPlan;
}

/** Someone waiting for upstreams to answer (see whenSettled). */
interface SettleWaiter {
  pending: Set<string>;
  done(): void;
}

export class UpstreamPool implements ReadonlyMap<string, Upstream> {
  readonly #upstreams = new Map<string, Upstream>();
  readonly #hooks: UpstreamHooks;
  readonly #waiters = new Set<SettleWaiter>();
  #running = false;

  constructor(private readonly options: UpstreamPoolOptions) {
    this.#hooks = { ...options.hooks, onStatus: (id, status, error) => this.#onStatus(id, status, error) };
  }

  /** Whether the pool runs: servers added now start at once. */
  get running(): boolean {
    return this.#running;
  }

  /** Starts one upstream per configured server (disabled ones report 'disabled', those on first use 'idle'). */
  start(servers: Readonly<Record<string, ServerConfig>>): void {
    this.#running = true;
    for (const [id, cfg] of Object.entries(servers)) this.#start(id, cfg);
  }

  /** Stops every upstream and empties the pool; servers added afterwards wait for the next start. */
  async stop(): Promise<void> {
    this.#running = false;
    await Promise.all([...this.#upstreams.values()].map((u) => u.stop()));
    this.#upstreams.clear();
  }

  /** A server added to the config: it starts now if the pool runs. */
  add(id: string, cfg: ServerConfig): void {
    if (this.#running) this.#start(id, cfg);
  }

  /** A server whose config changed: the old connection stops, the new one starts if the pool runs. */
  async replace(id: string, cfg: ServerConfig): Promise<void> {
    await this.remove(id);
    this.add(id, cfg);
  }

  /** A server removed from the config: it leaves the pool, then stops. */
  async remove(id: string): Promise<void> {
    const up = this.#upstreams.get(id);
    this.#upstreams.delete(id);
    await up?.stop();
  }

  /**
   * Restarts a server (starting it if the pool has none for it yet) and resolves with its upstream. Not
   * while the pool is stopped (during or after the hub's stop): a server started then would outlive the
   * app. The upstream then comes back as it is, or unstarted when the pool has none.
   */
  async restart(id: string, cfg: ServerConfig): Promise<Upstream> {
    if (!this.#running) return this.#upstreams.get(id) ?? new Upstream(id, cfg, this.#hooks, this.options.upstream);
    const up = this.#upstreams.get(id) ?? this.#start(id, cfg);
    await up.restart();
    return up;
  }

  /**
   * Resolves once none of these upstreams is connecting any more (each is ready, failed, stopped or gone),
   * or after `timeoutMs`, whichever comes first. Never rejects.
   */
  whenSettled(ids: Iterable<string>, timeoutMs: number): Promise<void> {
    const pending = new Set([...ids].filter((id) => this.#upstreams.get(id)?.status === 'connecting'));
    if (pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter: SettleWaiter = {
        pending,
        done: () => {
          clearTimeout(timer);
          this.#waiters.delete(waiter);
          resolve();
        },
      };
      const timer = setTimeout(waiter.done, timeoutMs);
      timer.unref?.();
      this.#waiters.add(waiter);
    });
  }

  /**
   * An upstream outside the pool, for a one-off connection test: it reports nothing (no status, stderr,
   * log or progress events), and what it asks a client is answered here, never routed to an app: no
   * folders for roots, a refusal for sampling and elicitation.
   */
  probe(cfg: ServerConfig): Upstream {
    const quiet: UpstreamHooks = {
      createTransport: this.#hooks.createTransport,
      onStatus: () => {},
      onListsChanged: () => {},
      onStderr: () => {},
      onProgress: () => {},
      onLog: () => {},
      onResourceUpdated: () => {},
      routeRequest: (_id, kind) => {
        if (kind === 'roots') return Promise.resolve({ roots: [] });
        return Promise.reject(new Error(`Spillway is only testing the connection: it answers no ${kind} request now.`));
      },
    };
    return new Upstream('test', cfg, quiet, this.options.upstream);
  }

  #start(id: string, cfg: ServerConfig): Upstream {
    const up = new Upstream(id, cfg, this.#hooks, this.options.upstream);
    this.#upstreams.set(id, up);
    const plan = this.options.plan?.(id, cfg);
    up.idleStopMs = plan?.idleStopMs ?? 0;
    if (plan?.lazy) up.park();
    else up.start();
    return up;
  }

  #onStatus(id: string, status: UpstreamStatus, error?: string): void {
    const up = this.#upstreams.get(id);
    this.options.onStatus({
      server: id,
      status,
      ...(error ? { error } : {}),
      ...(status === 'ready' && up ? { tools: up.tools.length } : {}),
    });
    if (status === 'connecting') return;
    for (const waiter of [...this.#waiters]) {
      if (waiter.pending.delete(id) && waiter.pending.size === 0) waiter.done();
    }
  }

  // ── ReadonlyMap ──────────────────────────────────────────────────────────────────────────────
  get size(): number {
    return this.#upstreams.size;
  }
  get(id: string): Upstream | undefined {
    return this.#upstreams.get(id);
  }
  has(id: string): boolean {
    return this.#upstreams.has(id);
  }
  keys(): MapIterator<string> {
    return this.#upstreams.keys();
  }
  values(): MapIterator<Upstream> {
    return this.#upstreams.values();
  }
  entries(): MapIterator<[string, Upstream]> {
    return this.#upstreams.entries();
  }
  [Symbol.iterator](): MapIterator<[string, Upstream]> {
    return this.#upstreams[Symbol.iterator]();
  }
  forEach(fn: (value: Upstream, key: string, map: ReadonlyMap<string, Upstream>) => void, thisArg?: unknown): void {
    this.#upstreams.forEach((v, k) => fn.call(thisArg, v, k, this));
  }
}
