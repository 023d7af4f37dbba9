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

function refused(action: string, err: unknown): SecretStoreError {
  const reason = err instanceof Error ? err.message : String(err);
  return new SecretStoreError(`The system keychain refused to ${action} (${reason}). Unlock the keychain or allow Spillway access, then try again.`);
}

export class KeychainStore implements SecretStore {
  readonly kind = 'keychain';
  readonly #known = new KnownValues();

  constructor(
    private readonly service: string,
    private readonly entry: KeychainEntryFactory = keyringEntry,
  ) {}

  #entry(serverId: string, name: string): KeychainEntry {
    return this.entry(this.service, `${serverId}/${name}`);
  }

  async get(serverId: string, name: string): Promise<string | undefined> {
    let value: string | null | undefined;
    try {
      value = await this.#entry(serverId, name).getPassword();
    } catch (err) {
      throw refused(`read the secret ${name} of ${serverId}`, err);
    }
    this.#known.note(`${serverId}/${name}`, value ?? undefined);
    return value ?? undefined;
  }

  async set(serverId: string, name: string, value: string): Promise<void> {
    try {
      await this.#entry(serverId, name).setPassword(value);
    } catch (err) {
      throw refused(`store the secret ${name} of ${serverId}`, err);
    }
    this.#known.note(`${serverId}/${name}`, value);
  }

  async delete(serverId: string, name: string): Promise<void> {
    try {
      await this.#entry(serverId, name).deleteCredential();
    } catch (err) {
      // keyring reports a missing entry as an error on some platforms: forgetting nothing is fine.
      if (!/no (matching )?entry|not found/i.test(err instanceof Error ? err.message : String(err)))
        throw refused(`forget the secret ${name} of ${serverId}`, err);
    }
    this.#known.note(`${serverId}/${name}`, undefined);
  }

  known(): readonly string[] {
    return this.#known.list();
  }
}
