/** Calls waiting for an upstream's try on its way (a connect, or a scheduled reconnect) to end: Upstream.whenTried. */
export class TryWaiters {
  readonly #waiters = new Set<() => void>();

  /** Resolves at the next release(), or after `timeoutMs` at the latest. */
  wait(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      timer.unref?.();
      this.#waiters.add(done);
    });
  }

  /** The try has ended (ready or not) or the server was stopped: every waiter resumes. */
  release(): void {
    for (const done of [...this.#waiters]) done();
  }
}
