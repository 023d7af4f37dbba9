/** Disk use of spilled results (`spill.usage`) and clearing them (`spill.clear`). */
import type { ApiFailure, Backend } from './api.js';
import type { SpillUsage } from '../../../shared/api-spill.js';
import { notOffered } from './availability.js';
import { coalesced } from './refresh-loop.js';

export class SpillStorageState {
  #usage = $state<SpillUsage | undefined>();
  #available = $state(true);
  #error = $state<ApiFailure | undefined>();
  #clearing = $state(false);
  /** How many results the last Clear removed, for its confirmation note. */
  #cleared = $state<number | undefined>();
  readonly #backend: Backend;

  readonly refresh = coalesced(async () => {
    const result = await this.#backend.call('spill.usage', {});
    if (result.ok) {
      this.#usage = result.value;
      this.#available = true;
    } else {
      this.#available = !notOffered(result);
      this.#error = this.#available ? result : undefined;
    }
  });

  constructor(backend: Backend) {
    this.#backend = backend;
  }

  get usage(): SpillUsage | undefined {
    return this.#usage;
  }
  get available(): boolean {
    return this.#available;
  }
  get error(): ApiFailure | undefined {
    return this.#error;
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
    this.#error = result.ok ? undefined : result;
    this.#cleared = result.ok ? result.value.deleted : undefined;
    await this.refresh();
    return result.ok;
  }
}
