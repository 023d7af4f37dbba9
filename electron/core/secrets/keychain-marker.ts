/**
 * Which store a data folder's secrets are in is kept in the folder, not decided anew at every start: once
 * the keychain answered there, the marker file `secrets-in-keychain.txt` says so (a note for people, never
 * a secret). At a later start where the keychain does not answer (locked, or Spillway run over SSH without
 * the desktop's Secret Service), the folder keeps using the keychain and says plainly that it cannot reach
 * it, instead of switching to an empty secrets.enc where new values would land apart from the others.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { syncFolder, writeAtomically } from '../files/atomic-file.js';
import { KeychainRefusal } from './keychain-store.js';
import type { SecretStore } from './secret-store.js';

export const KEYCHAIN_MARKER_FILE = 'secrets-in-keychain.txt';

const NOTE =
  "Spillway keeps this data folder's secrets (servers' keys, sign-in tokens) in the system keychain.\n" +
  'While this file is here, Spillway uses the keychain even at a start where it does not answer, and says so.\n' +
  'Remove this file only to keep the secrets in secrets.enc in this folder instead: enter them again then.\n';

/** Whether this data folder's secrets are in the keychain (a marker that cannot be checked counts as yes). */
export async function keptInKeychain(dataDir: string): Promise<boolean> {
  try {
    await stat(join(dataDir, KEYCHAIN_MARKER_FILE));
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

/** Records that this data folder's secrets are in the keychain (nothing to do when it is recorded). */
export async function markKeptInKeychain(dataDir: string): Promise<void> {
  if (await keptInKeychain(dataDir)) return;
  await writeAtomically(join(dataDir, KEYCHAIN_MARKER_FILE), Buffer.from(NOTE, 'utf8'), 0o600);
  await syncFolder(dataDir);
}

/**
 * The keychain store of a data folder whose keychain did not answer when Spillway started (with what a
 * move left in secrets.enc behind it, see keychainWithUnmoved). Every call still goes to the keychain (so
 * a server's Restart works once it is unlocked); while it refuses, the error says where the secrets are
 * and what to do.
 */
export class UnansweredKeychainStore implements SecretStore {
  readonly kind = 'keychain';

  constructor(
    private readonly keychain: SecretStore,
    private readonly dataDir: string,
  ) {}

  /** Throws `err`; a refusal of the keychain with where the secrets are before, and the other ways out after, its own message. */
  #explained(err: unknown): never {
    if (!(err instanceof KeychainRefusal)) throw err;
    throw new KeychainRefusal(
      `This data folder keeps its secrets in the system keychain, which did not answer when Spillway started. ${err.message} ` +
        '(Over SSH or without a desktop session, run Spillway in your desktop session; to keep the secrets in a file in the data folder ' +
        `instead, remove ${join(this.dataDir, KEYCHAIN_MARKER_FILE)}, restart Spillway and enter them again.)`,
    );
  }

  async get(serverId: string, name: string): Promise<string | undefined> {
    try {
      return await this.keychain.get(serverId, name);
    } catch (err) {
      this.#explained(err);
    }
  }

  async set(serverId: string, name: string, value: string): Promise<void> {
    try {
      await this.keychain.set(serverId, name, value);
    } catch (err) {
      this.#explained(err);
    }
  }

  async delete(serverId: string, name: string): Promise<void> {
    try {
      await this.keychain.delete(serverId, name);
    } catch (err) {
      this.#explained(err);
    }
  }

  known(): readonly string[] {
    return this.keychain.known();
  }
}
