/**
 * The changes of one client's file, one at a time: a Connect made while a Disconnect revokes the token it
 * writes would leave the app an entry that no longer works. Different clients' changes run side by side.
 */
export class ClientQueue {
  /** Per client, the last change in line. */
  readonly #last = new Map<string, Promise<unknown>>();

  /** Runs `change` once the client's changes before it have ended (failed or not). */
  run<T>(id: string, change: () => Promise<T>): Promise<T> {
    const done = (this.#last.get(id) ?? Promise.resolve()).then(change);
    const settled = done.catch(() => undefined);
    this.#last.set(id, settled);
    void settled.then(() => {
      if (this.#last.get(id) === settled) this.#last.delete(id);
    });
    return done;
  }
}
