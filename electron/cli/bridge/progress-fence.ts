/** How long a response waits behind a progress notification. */
const PROGRESS_FENCE_MS = 10;

/**
 * The order of the lines the bridge writes to the client. SDK stdio clients (1.x) drop a progress
 * notification that they read in the same chunk as the result it belongs to: the response handler removes
 * the progress handler before the notification's (microtask-deferred) handler runs. So after a progress
 * notification, a response waits a moment, and everything behind it keeps its order.
 */
export class ProgressFence {
  readonly #write: (raw: Buffer) => void;
  /** Called once the lines held behind a fence are written. */
  readonly #released: () => void;
  #held: Buffer[] = [];
  #timer: NodeJS.Timeout | undefined;

  constructor(write: (raw: Buffer) => void, released: () => void) {
    this.#write = write;
    this.#released = released;
  }

  /** Whether lines wait behind a progress notification. */
  get holding(): boolean {
    return this.#held.length > 0;
  }

  deliver(raw: Buffer, progress: boolean, response: boolean): void {
    if (this.#timer && (response || this.#held.length > 0)) {
      this.#held.push(raw);
      return;
    }
    this.#write(raw);
    if (!progress) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      const held = this.#held;
      this.#held = [];
      for (const line of held) this.#write(line);
      this.#released();
    }, PROGRESS_FENCE_MS);
  }
}
