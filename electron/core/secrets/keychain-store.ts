/**
 * The OS keychain backend (macOS Keychain, Windows Credential Manager, the Secret Service on Linux)
 * through @napi-rs/keyring, which ships prebuilt binaries for each platform. One keychain service per
 * data folder (named with its hub id), so two data folders never share or overwrite each other's secrets.
 * A long value (sign-in tokens) is kept in several entries: see keychain-parts.ts.
 */
import { AsyncEntry } from '@napi-rs/keyring';
import { entryCount, joinValue, partAccount, splitValue } from './keychain-parts.js';
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

/** The keychain refused a call or gave no answer in time (not: it answered with a damaged value). */
export class KeychainRefusal extends SecretStoreError {}

function refused(action: string, err: unknown, timeoutMs: number): KeychainRefusal {
  if (err instanceof NoAnswer)
    return new KeychainRefusal(
      `The system keychain did not answer within ${Math.round(timeoutMs / 1000)} seconds when Spillway asked it to ${action}. ` +
        'It may be waiting for you to unlock it or to allow Spillway access, in a window that can be hidden behind others: answer that window or unlock the keychain, then try again.',
    );
  const reason = err instanceof Error ? err.message : String(err);
  return new KeychainRefusal(`The system keychain refused to ${action} (${reason}). Unlock the keychain or allow Spillway access, then try again.`);
}

/** A value's parts in the keychain do not belong together (see joinValue). */
class Incomplete extends Error {}

const isMissing = (err: unknown) => /no (matching )?entry|not found/i.test(err instanceof Error ? err.message : String(err));

export class KeychainStore implements SecretStore {
  readonly kind = 'keychain';
  readonly #known = new KnownValues();

  constructor(
    private readonly service: string,
    private readonly entry: KeychainEntryFactory = keyringEntry,
    private readonly timeoutMs = KEYCHAIN_TIMEOUT_MS,
  ) {}

  /** One call to a keychain entry, given up on after timeoutMs. */
  async #call<T>(account: string, run: (entry: KeychainEntry) => Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new NoAnswer()), this.timeoutMs);
    });
    try {
      return await Promise.race([run(this.entry(this.service, account)), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async #read(account: string): Promise<string | undefined> {
    return (await this.#call(account, (entry) => entry.getPassword())) ?? undefined;
  }

  /** Removes one entry; keyring reports a missing entry as an error on some platforms, and forgetting nothing is fine. */
  async #forget(account: string): Promise<void> {
    try {
      await this.#call(account, (entry) => entry.deleteCredential());
    } catch (err) {
      if (err instanceof NoAnswer || !isMissing(err)) throw err;
    }
  }

  async get(serverId: string, name: string): Promise<string | undefined> {
    const account = `${serverId}/${name}`;
    let value: string | undefined;
    try {
      const head = await this.#read(account);
      value = head === undefined ? undefined : await joinValue(head, (index) => this.#read(partAccount(account, index)));
      if (head !== undefined && value === undefined) throw new Incomplete();
    } catch (err) {
      if (err instanceof Incomplete)
        throw new SecretStoreError(
          `The secret ${name} of ${serverId} in the system keychain is incomplete: Spillway was stopped while saving it. ` +
            'Enter it again in Spillway (for a sign-in, sign in again).',
        );
      throw refused(`read the secret ${name} of ${serverId}`, err, this.timeoutMs);
    }
    this.#known.note(account, value);
    return value;
  }

  async set(serverId: string, name: string, value: string): Promise<void> {
    const account = `${serverId}/${name}`;
    try {
      const before = entryCount(await this.#read(account));
      const [head, ...parts] = splitValue(value);
      // The parts first and the head last: until the head is written, the old head still names the old value.
      for (const [i, part] of parts.entries()) await this.#call(partAccount(account, i + 1), (entry) => entry.setPassword(part));
      await this.#call(account, (entry) => entry.setPassword(head));
      // A shorter value leaves the old value's later parts behind: remove them.
      for (let index = parts.length + 1; index < before; index++) await this.#forget(partAccount(account, index));
    } catch (err) {
      throw refused(`store the secret ${name} of ${serverId}`, err, this.timeoutMs);
    }
    this.#known.note(account, value);
  }

  async delete(serverId: string, name: string): Promise<void> {
    const account = `${serverId}/${name}`;
    try {
      const count = entryCount(await this.#read(account));
      await this.#forget(account);
      for (let index = 1; index < count; index++) await this.#forget(partAccount(account, index));
    } catch (err) {
      throw refused(`forget the secret ${name} of ${serverId}`, err, this.timeoutMs);
    }
    this.#known.note(account, undefined);
  }

  known(): readonly string[] {
    return this.#known.list();
  }
}
