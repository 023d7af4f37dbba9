/**
 * The OS keychain backend (macOS Keychain, Windows Credential Manager, the Secret Service on Linux)
 * through @napi-rs/keyring, which ships prebuilt binaries for each platform. One keychain service per
 * data folder (named with its hub id), so two data folders never share or overwrite each other's secrets.
 */
import { AsyncEntry } from '@napi-rs/keyring';
import { KnownValues, SecretStoreError, type SecretStore } from './secret-store.js';

/** The part of @napi-rs/keyring's AsyncEntry the store uses (a test may hand in its own). */
export interface KeychainEntry {
  getPassword(): Promise<string | null | undefined>;
  setPassword(password: string): Promise<void>;
  deleteCredential(): Promise<boolean>;
}

export type KeychainEntryFactory = (service: string, account: string) => KeychainEntry;

export const keyringEntry: KeychainEntryFactory = (service, account) => new AsyncEntry(service, account);

/** The keychain service name for a data folder's hub id. */
export const keychainService = (hubId: string) => `Spillway ${hubId}`;

/**
 * How long one keychain call may take. A locked keychain can wait on a prompt nobody answers (a macOS
 * unlock window behind others, a locked login keyring on Linux), and every config change waits in line
 * behind the change that asked.
 */
export const KEYCHAIN_TIMEOUT_MS = 45_000;

/** The keychain gave no answer in time (see KEYCHAIN_TIMEOUT_MS). */
class NoAnswer extends Error {}

function refused(action: string, err: unknown, timeoutMs: number): SecretStoreError {
  if (err instanceof NoAnswer)
    return new SecretStoreError(
      `The system keychain did not answer within ${Math.round(timeoutMs / 1000)} seconds when Spillway asked it to ${action}. ` +
        'It may be waiting for you to unlock it or to allow Spillway access, in a window that can be hidden behind others: answer that window or unlock the keychain, then try again.',
    );
  const reason = err instanceof Error ? err.message : String(err);
  return new SecretStoreError(`The system keychain refused to ${action} (${reason}). Unlock the keychain or allow Spillway access, then try again.`);
}

export class KeychainStore implements SecretStore {
  readonly kind = 'keychain';
  readonly #known = new KnownValues();

  constructor(
    private readonly service: string,
    private readonly entry: KeychainEntryFactory = keyringEntry,
    private readonly timeoutMs = KEYCHAIN_TIMEOUT_MS,
  ) {}

  /** One call to the keychain entry of a server's value, given up on after timeoutMs. */
  async #call<T>(serverId: string, name: string, run: (entry: KeychainEntry) => Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new NoAnswer()), this.timeoutMs);
    });
    try {
      return await Promise.race([run(this.entry(this.service, `${serverId}/${name}`)), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async get(serverId: string, name: string): Promise<string | undefined> {
    let value: string | null | undefined;
    try {
      value = await this.#call(serverId, name, (entry) => entry.getPassword());
    } catch (err) {
      throw refused(`read the secret ${name} of ${serverId}`, err, this.timeoutMs);
    }
    this.#known.note(`${serverId}/${name}`, value ?? undefined);
    return value ?? undefined;
  }

  async set(serverId: string, name: string, value: string): Promise<void> {
    try {
      await this.#call(serverId, name, (entry) => entry.setPassword(value));
    } catch (err) {
      throw refused(`store the secret ${name} of ${serverId}`, err, this.timeoutMs);
    }
    this.#known.note(`${serverId}/${name}`, value);
  }

  async delete(serverId: string, name: string): Promise<void> {
    try {
      await this.#call(serverId, name, (entry) => entry.deleteCredential());
    } catch (err) {
      // keyring reports a missing entry as an error on some platforms: forgetting nothing is fine.
      if (err instanceof NoAnswer || !/no (matching )?entry|not found/i.test(err instanceof Error ? err.message : String(err)))
        throw refused(`forget the secret ${name} of ${serverId}`, err, this.timeoutMs);
    }
    this.#known.note(`${serverId}/${name}`, undefined);
  }

  known(): readonly string[] {
    return this.#known.list();
  }
}
