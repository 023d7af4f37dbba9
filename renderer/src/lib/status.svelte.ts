/** The hub's overall state for the status line: endpoint, paused, servers ready; kept fresh by events. */
import type { Backend, ApiFailure, ApiResult, Res } from './api.js';
import type { Status } from '../../../shared/api.js';
import { coalesced } from './refresh-loop.js';

const REFRESHING_EVENTS = new Set(['upstream.status', 'config.changed', 'catalog.changed', 'session.opened', 'session.closed']);

export class StatusState {
  #status = $state<Status | undefined>();
  #error = $state<ApiFailure | undefined>();
  #pauseError = $state<ApiFailure | undefined>();
  readonly #backend: Backend;

  readonly refresh = coalesced(async () => {
    const result = await this.#backend.call('status', {});
    if (result.ok) {
      this.#status = result.value;
      this.#error = undefined;
    } else {
      this.#error = result;
    }
  });

  #ready = $derived.by(() => this.#status?.upstreams.filter((u) => u.status === 'ready').length ?? 0);
  /** Servers that start on first use and are not running now: healthy, available to a call. */
  #idle = $derived.by(() => this.#status?.upstreams.filter((u) => u.status === 'idle').length ?? 0);
  #failing = $derived.by(() => this.#status?.upstreams.filter((u) => u.status === 'error').length ?? 0);

  constructor(backend: Backend) {
    this.#backend = backend;
  }

  get status(): Status | undefined {
    return this.#status;
  }
  get error(): ApiFailure | undefined {
    return this.#error;
  }
  get pauseError(): ApiFailure | undefined {
    return this.#pauseError;
  }
  get endpoint(): string | undefined {
    return this.#status?.endpoint;
  }
  get paused(): boolean {
    return this.#status?.paused ?? false;
  }
  get readyCount(): number {
    return this.#ready;
  }
  /** How many servers wait for their first call (they count as ready: a call starts them). */
  get idleCount(): number {
    return this.#idle;
  }
  get failingCount(): number {
    return this.#failing;
  }
  get serverCount(): number {
    return this.#status?.upstreams.length ?? 0;
  }

  /** Loads once and follows events; returns the stop function. */
  start(): () => void {
    const stop = this.#backend.subscribe((e) => {
      if (REFRESHING_EVENTS.has(e.type)) void this.refresh();
    });
    void this.refresh();
    return stop;
  }

  /** The endpoint with its key (`?token=`), which any client can use as it is: for Copy. */
  async addressWithKey(): Promise<ApiResult<Res<'clients.otherAccess'>>> {
    return this.#backend.call('clients.otherAccess', {});
  }

  async setPaused(paused: boolean): Promise<void> {
    const result = await this.#backend.call('settings.set', { paused });
    this.#pauseError = result.ok ? undefined : result;
    if (result.ok && this.#status) this.#status = { ...this.#status, paused: result.value.paused };
  }
}
