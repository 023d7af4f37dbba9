/**
 * A transport's deliveries in the order their messages arrived, when some of them must wait (a spooled
 * message until its files are written, a message whose long texts are read back from disk): what comes
 * after such a one queues behind it. With nothing waiting, a delivery runs at once, in the same turn.
 * A delivery that throws or rejects is reported to `onError` and never escapes to the stream reader:
 * thrown out of a socket's or a child's 'data' listener it was an uncaught exception, and the lines
 * after it in the same chunk were lost.
 */
export class OrderedDelivery {
  readonly #onError: (error: Error) => void;
  /** The last delivery still waiting, if any. */
  #tail: Promise<void> | undefined;

  /** `onError` hears of a delivery that threw or rejected (at once or after waiting); the ones after it still run. */
  constructor(onError: (error: Error) => void) {
    this.#onError = onError;
  }

  /** Runs `deliver` now when nothing waits, else after everything queued before it. */
  run(deliver: () => unknown): void {
    if (this.#tail) return this.#hold(this.#tail.then(deliver));
    let pending: unknown;
    try {
      pending = deliver();
    } catch (error) {
      return this.#report(error);
    }
    if (pending instanceof Promise) this.#hold(pending);
  }

  #report(error: unknown): void {
    this.#onError(error instanceof Error ? error : new Error(String(error)));
  }

  #hold(pending: Promise<unknown>): void {
    const turn: Promise<void> = pending.then(
      () => undefined,
      (error: unknown) => this.#report(error),
    );
    this.#tail = turn;
    void turn.then(() => {
      if (this.#tail === turn) this.#tail = undefined;
    });
  }
}

/**
 * A delivery that failed (its handler threw, or its message could not be read back), as a transport that
 * catches it reports it: with the failure's message, the failure as its cause. Not the peer's fault, and
 * never an error the SDK raises itself, so whoever hears of it says it (the hub's session logs it).
 */
export class DeliveryError extends Error {
  constructor(cause: Error) {
    super(cause.message, { cause });
    this.name = 'DeliveryError';
  }
}
