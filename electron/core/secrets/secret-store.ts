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
   * The values this store has read or written in this run (also those replaced or deleted since), for
   * masking them in logs and answers. A new array whenever they change (SecretValues compares snapshots
   * by identity).
   */
  known(): readonly string[];
}

/** A store that cannot answer (a keychain refusing access, a damaged secrets file): the message says what to do. */
export class SecretStoreError extends Error {
  override name = 'SecretStoreError';
}

/**
 * The values a store has seen in this run, kept as one array replaced on every change. A value replaced
 * or forgotten stays known for the rest of the run: the server that used it can still print it while it
 * stops, after its new config was saved or it was removed, and that line must be masked too.
 */
export class KnownValues {
  readonly #seen = new Set<string>();
  #list: readonly string[] = [];

  /** Notes the value now kept under a key; undefined (forgotten) leaves what was known. */
  note(_key: string, value: string | undefined): void {
    if (value === undefined || this.#seen.has(value)) return;
    this.#seen.add(value);
    this.#list = [...this.#seen];
  }

  list(): readonly string[] {
    return this.#list;
  }
}
