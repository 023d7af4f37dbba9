/** Token savings from the ledger (`savings.report`), refreshed after calls and tools/list answers. */
import type { ApiFailure, Backend } from './api.js';
import type { SavingsReport } from '../../../shared/ledger.js';
import { notOffered } from './availability.js';
import { coalesced } from './refresh-loop.js';

export class SavingsState {
  #report = $state<SavingsReport | undefined>();
  #error = $state<ApiFailure | undefined>();
  #loading = $state(false);
  #available = $state(true);
  readonly #backend: Backend;

  /** Reloads at most once at a time; a burst of finished calls folds into one reload. */
  readonly load = coalesced(async () => {
    this.#loading = true;
    const result = await this.#backend.call('savings.report', {});
    this.#loading = false;
    if (result.ok) {
      this.#report = result.value;
      this.#error = undefined;
      this.#available = true;
    } else {
      this.#available = !notOffered(result);
      this.#error = this.#available ? result : undefined;
    }
  });

  constructor(backend: Backend) {
    this.#backend = backend;
  }

  get report(): SavingsReport | undefined {
    return this.#report;
  }
  get error(): ApiFailure | undefined {
    return this.#error;
  }
  get loading(): boolean {
    return this.#loading;
  }
  /** False once the hub said it does not keep a ledger. */
  get available(): boolean {
    return this.#available;
  }

  /** Loads and refreshes after each finished call or tools/list change; returns the stop. */
  start(): () => void {
    const stop = this.#backend.subscribe((e) => {
      if (e.type === 'call.finished' || e.type === 'catalog.changed' || e.type === 'session.opened') void this.load();
    });
    void this.load();
    return stop;
  }
}
