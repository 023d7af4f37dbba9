/** Token savings from the ledger, when the contract has `savings.summary`; otherwise an empty state. */
import { hasMethod, type ApiFailure, type Backend } from './api.js';
import { callProvisional, SavingsSummarySchema, type SavingsSummary } from './provisional.js';

export class SavingsState {
  #summary = $state<SavingsSummary | undefined>();
  #error = $state<ApiFailure | undefined>();
  #loading = $state(false);
  readonly available = hasMethod('savings.summary');
  readonly #backend: Backend;

  constructor(backend: Backend) {
    this.#backend = backend;
  }

  get summary(): SavingsSummary | undefined {
    return this.#summary;
  }
  get error(): ApiFailure | undefined {
    return this.#error;
  }
  get loading(): boolean {
    return this.#loading;
  }

  async load(): Promise<void> {
    if (!this.available) return;
    this.#loading = true;
    const result = await callProvisional(this.#backend, 'savings.summary', SavingsSummarySchema);
    this.#loading = false;
    if (result.ok) {
      this.#summary = result.value;
      this.#error = undefined;
    } else {
      this.#error = result;
    }
  }

  /** Loads and refreshes after each finished call; returns the stop. */
  start(): () => void {
    if (!this.available) return () => {};
    let queued = false;
    const stop = this.#backend.subscribe((e) => {
      if (e.type !== 'call.finished' || queued) return;
      queued = true;
      void this.load().finally(() => {
        queued = false;
      });
    });
    void this.load();
    return stop;
  }
}
