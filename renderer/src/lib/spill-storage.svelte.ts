/** Disk use of spilled results (`spill.usage`) and clearing them (`spill.clear`). */
import type { ApiFailure, Backend } from './api.js';
import type { SpillUsage } from '../../../shared/api-spill.js';
import { RemoteValue } from './remote-value.svelte.js';

export class SpillStorageState {
  readonly #usage: RemoteValue<'spill.usage'>;
  /** The last Clear's failure (load failures are the RemoteValue's). */
  #clearError = $state<ApiFailure | undefined>();
  #clearing = $state(false);
  /** How many results the last Clear removed, for its confirmation note. */
  #cleared = $state<number | undefined>();
  readonly #backend: Backend;

  constructor(backend: Backend) {
    this.#backend = backend;
    this.#usage = new RemoteValue(backend, 'spill.usage', {});
  }

  refresh(): Promise<void> {
    return this.#usage.load();
  }

  get usage(): SpillUsage | undefined {
    return this.#usage.value;
  }
  get available(): boolean {
    return this.#usage.available;
  }
  get error(): ApiFailure | undefined {
    return this.#clearError ?? this.#usage.error;
  }
  get clearing(): boolean {
    return this.#clearing;
  }
  get cleared(): number | undefined {
    return this.#cleared;
  }

  /** Loads and follows spilled calls and settings changes (the quota); returns the stop. */
  start(): () => void {
    const stop = this.#backend.subscribe((e) => {
      if ((e.type === 'call.finished' && e.handle) || e.type === 'config.changed') void this.refresh();
    });
    void this.refresh();
    return stop;
  }

  /** Deletes every spilled result (the caller has asked the user first). */
  async clear(): Promise<boolean> {
    this.#clearing = true;
    const result = await this.#backend.call('spill.clear', {});
    this.#clearing = false;
    this.#clearError = result.ok ? undefined : result;
    this.#cleared = result.ok ? result.value.deleted : undefined;
    await this.refresh();
    return result.ok;
  }
}
