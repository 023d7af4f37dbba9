/**
 * The secret store (issue 15): where env and header values live instead of config.json. One store per
 * data folder, used alike by the app and the headless hub: the OS keychain where one answers, else an
 * encrypted file in the data folder (see open-secret-store.ts).
 */

/** Which backend holds the secrets, as the status reports it. */
export type SecretStoreKind = 'keychain' | 'encrypted-file';

export interface SecretStore {
  readonly kind: SecretStoreKind;
  /** The value stored for a server under `name` (e.g. `env:GITHUB_PAT`), or undefined when none is. */
  get(serverId: string, name: string): Promise<string | undefined>;
  set(serverId: string, name: string, value: string): Promise<void>;
  /** Forgets a value; forgetting one that is not stored is not an error. */
  delete(serverId: string, name: string): Promise<void>;
  /**
   * The values this store has read or written in this run, for masking them in logs and answers. A new
   * array whenever they change (SecretValues compares snapshots by identity).
   */
  known(): readonly string[];
}

/** A store that cannot answer (a keychain refusing access, a damaged secrets file): the message says what to do. */
export class SecretStoreError extends Error {
  override name = 'SecretStoreError';
}

/** The values a store has seen, kept as one array replaced on every change. */
export class KnownValues {
  #byKey = new Map<string, string>();
  #list: readonly string[] = [];

  note(key: string, value: string | undefined): void {
    if (value === undefined ? !this.#byKey.has(key) : this.#byKey.get(key) === value) return;
    if (value === undefined) this.#byKey.delete(key);
    else this.#byKey.set(key, value);
    this.#list = [...this.#byKey.values()];
  }

  list(): readonly string[] {
    return this.#list;
  }
}
