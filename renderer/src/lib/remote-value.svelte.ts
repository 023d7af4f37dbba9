/**
 * One value the hub answers with (a report, a list): loaded at most once at a time, remembering the
 * last error and whether the hub offers the method at all (`not_found` means "not available yet").
 */
import type { ApiFailure, Backend, MethodName, Req, Res } from './api.js';
import { notOffered } from './availability.js';
import { coalesced } from './refresh-loop.js';

export class RemoteValue<M extends MethodName> {
  #value = $state<Res<M> | undefined>();
  #error = $state<ApiFailure | undefined>();
  #loading = $state(false);
  #loaded = $state(false);
  #available = $state(true);

  /** Reloads; a burst of requests while one runs folds into a single rerun. */
  readonly load: () => Promise<void>;

  constructor(backend: Backend, method: M, request: Req<M>) {
    this.load = coalesced(async () => {
      this.#loading = true;
      const result = await backend.call(method, request);
      this.#loading = false;
      this.#loaded = true;
      if (result.ok) {
        this.#value = result.value;
        this.#error = undefined;
        this.#available = true;
      } else {
        this.#available = !notOffered(result);
        this.#error = this.#available ? result : undefined;
      }
    });
  }

  get value(): Res<M> | undefined {
    return this.#value;
  }
  get error(): ApiFailure | undefined {
    return this.#error;
  }
  get loading(): boolean {
    return this.#loading;
  }
  get loaded(): boolean {
    return this.#loaded;
  }
  /** False once the hub said it does not offer the method. */
  get available(): boolean {
    return this.#available;
  }
}
