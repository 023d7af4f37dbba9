/**
 * A transport's deliveries in the order their messages arrived, when some of them must wait (a spooled
 * message until its files are written, a message whose long texts are read back from disk): what comes
 * after such a one queues behind it. With nothing waiting, a delivery runs at once, in the same turn.
 */
export class OrderedDelivery {
  readonly #onError: (error: Error) => void;
  /** The last delivery still waiting, if any. */
  #tail: Promise<void> | undefined;

  /** `onError` hears of a delivery that threw or rejected; the ones after it still run. */
  constructor(onError: (error: Error) => void) {
    this.#onError = onError;
  }

  /** Runs `deliver` now when nothing waits, else after everything queued before it. */
  run(deliver: () => unknown): void {
    if (this.#tail) return this.#hold(this.#tail.then(deliver));
    const pending = deliver();
    if (pending instanceof Promise) this.#hold(pending);
  }

  #hold(pending: Promise<unknown>): void {
    const turn: Promise<void> = pending.then(
      () => undefined,
      (error: unknown) => this.#onError(error instanceof Error ? error : new Error(String(error))),
    );
    this.#tail = turn;
    void turn.then(() => {
      if (this.#tail === turn) this.#tail = undefined;
    });
  }
}
