/**
 * Whether the hub is answering. The window shows a lost connection at once (issue 14, item 2) and, when
 * the hub is back, reloads every view's data itself: nothing the user sees stays from before the gap.
 */
import type { Backend } from './api.js';

export class ConnectionState {
  #connected = $state(true);
  readonly #backend: Backend;

  constructor(backend: Backend) {
    this.#backend = backend;
  }

  get connected(): boolean {
    return this.#connected;
  }

  /** Follows the backend's connection; `onBack` runs each time the hub answers again. Returns the stop. */
  start(onBack: () => void): () => void {
    return this.#backend.watchConnection((connected) => {
      this.#connected = connected;
      if (connected) onBack();
    });
  }
}
