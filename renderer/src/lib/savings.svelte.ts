/** Token savings from the ledger (`savings.report`), refreshed after calls, read-backs and tools/list answers. */
import type { ApiFailure, Backend } from './api.js';
import type { SavingsReport } from '../../../shared/ledger.js';
import { RemoteValue } from './remote-value.svelte.js';

export interface SavingsOptions {
  /** First wait before asking again for a call the report does not hold yet (ms); doubles each time. */
  retryMs?: number;
  /** How long to keep asking for calls the report does not hold (ms). */
  patienceMs?: number;
  setTimeout?: (fn: () => void, ms: number) => unknown;
  clearTimeout?: (handle: unknown) => void;
}

export class SavingsState {
  readonly #report: RemoteValue<'savings.report'>;
  readonly #backend: Backend;
  /**
   * Finished calls the report does not count yet. The hub records a call in the ledger just after its
   * `call.finished` event (once its tokens are counted), so the report asked for on the event can miss it:
   * until the count catches up the report is asked for again, a little later each time (issue 14, item 3).
   */
  #owed = 0;
  #knownCalls: number | undefined;
  #timer: unknown;
  #waited = 0;
  #delay = 0;
  readonly #retryMs: number;
  readonly #patienceMs: number;
  readonly #later: (fn: () => void, ms: number) => unknown;
  readonly #cancel: (handle: unknown) => void;

  constructor(backend: Backend, options: SavingsOptions = {}) {
    this.#backend = backend;
    this.#report = new RemoteValue(backend, 'savings.report', {});
    this.#retryMs = options.retryMs ?? 100;
    this.#patienceMs = options.patienceMs ?? 15_000;
    this.#later = options.setTimeout ?? ((fn, ms) => setTimeout(fn, ms));
    this.#cancel = options.clearTimeout ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));
  }

  /** Reloads at most once at a time; a burst of finished calls folds into one reload. */
  async load(): Promise<void> {
    await this.#report.load();
    this.#settle();
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

  /**
   * Loads and refreshes after each finished call, each count the ledger made (a read of a kept result
   * and dispatch's own answers have only that event, and so does each tools/list record) and each
   * tools/list change; returns the stop. Reloads fold together (see load).
   */
  start(): () => void {
    const stop = this.#backend.subscribe((e) => {
      // A read-back or dispatch's own answer has no call.finished: its call.counted owes the call instead
      // (already recorded by then). A tools/list record's (`listed`) is no call: it reloads, owing nothing.
      if (e.type === 'call.finished' || (e.type === 'call.counted' && (e.readBack || e.dispatchAnswer))) {
        this.#owed++;
        this.#waited = 0;
        this.#delay = this.#retryMs;
      }
      if (e.type === 'call.finished' || e.type === 'call.counted' || e.type === 'catalog.changed' || e.type === 'session.opened') void this.load();
    });
    void this.load();
    return () => {
      stop();
      this.#stopWaiting();
    };
  }

  /** Counts the calls the new report holds against those owed, and asks again while some are missing. */
  #settle(): void {
    const calls = this.#report.value?.allTime.calls;
    if (calls === undefined) return;
    if (this.#knownCalls !== undefined && calls > this.#knownCalls) this.#owed = Math.max(0, this.#owed - (calls - this.#knownCalls));
    this.#knownCalls = calls;
    if (this.#owed === 0 || this.#waited >= this.#patienceMs) {
      // Past patience the call was not recorded (a failed write): stop asking.
      this.#owed = 0;
      this.#stopWaiting();
      return;
    }
    if (this.#timer !== undefined) return;
    const delay = this.#delay;
    this.#delay = Math.min(delay * 2, 2_000);
    this.#timer = this.#later(() => {
      this.#timer = undefined;
      this.#waited += delay;
      void this.load();
    }, delay);
  }

  #stopWaiting(): void {
    if (this.#timer !== undefined) this.#cancel(this.#timer);
    this.#timer = undefined;
  }
}
