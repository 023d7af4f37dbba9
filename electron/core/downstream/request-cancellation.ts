/**
 * A request's cancellation as the fast paths keep it: a flag and its listeners, with an AbortSignal made
 * only when something asks for one. An AbortSignal and a listener on it cost a plain call more than the
 * rest of its request stages, and nearly every call ends without being cancelled.
 */
export class RequestCancellation {
  #cancelled = false;
  #reason: unknown;
  #controller: AbortController | undefined;
  #listeners: ((reason: unknown) => void)[] = [];

  get cancelled(): boolean {
    return this.#cancelled;
  }

  /** The request's AbortSignal, made on first use (aborted already when the request was cancelled). */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#cancelled) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Cancels the request; `reason` as AbortController.abort takes it (undefined: an AbortError). */
  cancel(reason?: unknown): void {
    if (this.#cancelled) return;
    this.#cancelled = true;
    // What the signal's `reason` would be, so listeners see the same either way.
    this.#reason = reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
    this.#controller?.abort(this.#reason);
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener(this.#reason);
  }

  /** Calls `listener` with the reason once the request is cancelled, at once when it already is; returns how to stop listening. */
  onCancel(listener: (reason: unknown) => void): () => void {
    if (this.#cancelled) {
      listener(this.#reason);
      return () => undefined;
    }
    this.#listeners.push(listener);
    return () => {
      const at = this.#listeners.indexOf(listener);
      if (at !== -1) this.#listeners.splice(at, 1);
    };
  }
}

/** The key under which an `extra` built by requestExtra carries its request's cancellation. */
export const CANCELLATION = Symbol('spillway.cancellation');

/**
 * Calls `listener` with the reason once the request is cancelled, and at once when it already is (an abort
 * listener on `extra.signal` alone would never be called then); returns how to stop listening. Requests
 * of the fast paths are listened to without making their signal.
 */
export function whenCancelled(extra: { readonly signal: AbortSignal }, listener: (reason: unknown) => void): () => void {
  const cancellation = (extra as { [CANCELLATION]?: RequestCancellation })[CANCELLATION];
  if (cancellation) return cancellation.onCancel(listener);
  const signal = extra.signal;
  if (signal.aborted) {
    listener(signal.reason);
    return () => undefined;
  }
  const onAbort = () => listener(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  return () => signal.removeEventListener('abort', onAbort);
}

/** Whether the request was cancelled (by its client, or by its session closing), without making a fast path's signal. */
export function isCancelled(extra: { readonly signal: AbortSignal }): boolean {
  const cancellation = (extra as { [CANCELLATION]?: RequestCancellation })[CANCELLATION];
  return cancellation ? cancellation.cancelled : extra.signal.aborted;
}
