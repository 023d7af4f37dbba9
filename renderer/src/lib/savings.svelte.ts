/** Token savings from the ledger (`savings.report`), refreshed after calls and tools/list answers. */
import type { ApiFailure, Backend } from './api.js';
import type { SavingsReport } from '../../../shared/ledger.js';
import { RemoteValue } from './remote-value.svelte.js';

export class SavingsState {
  readonly #report: RemoteValue<'savings.report'>;
  readonly #backend: Backend;

  constructor(backend: Backend) {
    this.#backend = backend;
    this.#report = new RemoteValue(backend, 'savings.report', {});
  }

  /** Reloads at most once at a time; a burst of finished calls folds into one reload. */
  load(): Promise<void> {
    return this.#report.load();
  }

  get report(): SavingsReport | undefined {
    return this.#report.value;
  }
  get error(): ApiFailure | undefined {
    return this.#report.error;
  }
  get loading(): boolean {
    return this.#report.loading;
  }
  /** False once the hub said it does not keep a ledger. */
  get available(): boolean {
    return this.#report.available;
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
