/**
 * Idle stop's clock (issue 18): fires once nothing happened for `ms` while the server was not busy. A
 * touch only notes the time; the one timer, when due, looks again and waits the rest if there was news.
 */
export interface IdleTimerOptions {
  /** How long without activity counts as idle (0: never). */
  ms: number;
  busy(): boolean;
  onIdle(): void;
  now?: () => number;
}

export class IdleTimer {
  #last = 0;
  #timer: NodeJS.Timeout | undefined;
  readonly #now: () => number;

  constructor(private readonly options: IdleTimerOptions) {
    this.#now = options.now ?? Date.now;
  }

  /** Something happened (a request or an answer): the idle time counts from now. */
  touch(): void {
    this.#last = this.#now();
    if (this.#timer || this.options.ms <= 0 || this.options.busy()) return;
    this.#arm(this.options.ms);
  }

  cancel(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(ms: number): void {
    this.#timer = setTimeout(() => this.#due(), ms);
    this.#timer.unref?.();
  }

  #due(): void {
    this.#timer = undefined;
    // Busy: the answer that ends it touches again and arms a new timer.
    if (this.options.busy()) return;
    const rest = this.#last + this.options.ms - this.#now();
    if (rest > 0) this.#arm(rest);
    else this.options.onIdle();
  }
}
