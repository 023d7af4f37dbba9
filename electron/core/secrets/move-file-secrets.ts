/**
 * Secrets saved in secrets.enc (an older install, a start where no keychain answered) move into the
 * keychain at the first start where it answers; before, they were "not found" there. Each value is
 * written and read back; only when every one is in the keychain is the file retired, renamed to
 * `secrets.enc.moved-<time>` (still encrypted; secrets.key beside it stays, as the key to it). A value
 * the keychain already holds under the same name is kept, and the file's copy stays in the retired
 * file: the keychain's may be one entered again after the file's was "not found", and nothing is lost.
 * When a write fails, the file stays where it is and is read for what the keychain lacks (see
 * KeychainThenFile) until a later start moves the rest. The log names the values, never shows them.
 */
import { rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { syncFolder } from '../files/atomic-file.js';
import { EncryptedFileStore, SECRETS_FILE, SECRETS_KEY_FILE } from './encrypted-file-store.js';
import type { KeychainStore } from './keychain-store.js';
import type { SecretStore } from './secret-store.js';

const reason = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The name a moved secrets.enc gets: `secrets.enc.moved-20250102T030405Z`. */
export const movedFileName = (at: Date) => `${SECRETS_FILE}.moved-${at.toISOString().replace(/[-:]|\.\d+/g, '')}`;

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** The keychain store, once the data folder's secrets.enc (if any) has moved into it. */
export async function moveFileSecrets(keychain: KeychainStore, dataDir: string, log: (message: string) => void): Promise<SecretStore> {
  const path = join(dataDir, SECRETS_FILE);
  if (!(await exists(path))) return keychain;
  let file: EncryptedFileStore;
  try {
    file = await EncryptedFileStore.open(dataDir);
  } catch (err) {
    log(`The secrets in ${SECRETS_FILE} were not moved into the system keychain, and the file is left as it is: ${reason(err)}`);
    return keychain;
  }
  const moved: string[] = [];
  const kept: string[] = [];
  try {
    for (const { serverId, name, value } of file.entries()) {
      const label = `${name} of ${serverId}`;
      const there = await keychain.get(serverId, name);
      if (there === undefined) {
        await keychain.set(serverId, name, value);
        if ((await keychain.get(serverId, name)) !== value) throw new Error(`the keychain did not give back the secret ${label} as written`);
        moved.push(label);
      } else if (there !== value) kept.push(label);
    }
  } catch (err) {
    log(
      `Spillway could not move every secret from ${SECRETS_FILE} into the system keychain (${reason(err)}). ` +
        `It reads what the keychain lacks from ${SECRETS_FILE} meanwhile, and tries again at the next start.`,
    );
    return new KeychainThenFile(keychain, file);
  }
  const retired = movedFileName(new Date());
  try {
    await rename(path, join(dataDir, retired));
    await syncFolder(dataDir);
  } catch (err) {
    log(
      `The secrets in ${SECRETS_FILE} are in the system keychain now, but the file could not be renamed to ${retired} (${reason(err)}); it is read for what the keychain lacks.`,
    );
    return new KeychainThenFile(keychain, file);
  }
  const names = (labels: string[]) => labels.join(', ');
  log(
    (moved.length > 0 ? `Moved the secrets ${names(moved)} from ${SECRETS_FILE} into the system keychain. ` : '') +
      (kept.length > 0 ? `Kept the keychain's own values of ${names(kept)}; the file's other values of them stay in ${retired}. ` : '') +
      `${SECRETS_FILE} is now ${retired} (still encrypted, with ${SECRETS_KEY_FILE} as its key): remove both once your servers start with their keys.`,
  );
  return keychain;
}

/**
 * The keychain with secrets.enc behind it, while not every value of the file could be moved: a value is
 * read from the keychain, else from the file; a new value goes to the keychain only (it is read first); a
 * value forgotten is forgotten in both, so the file's copy does not come back.
 */
export class KeychainThenFile implements SecretStore {
  readonly kind = 'keychain';
  #from: [readonly string[], readonly string[]] = [[], []];
  #known: readonly string[] = [];

  constructor(
    private readonly keychain: KeychainStore,
    private readonly file: EncryptedFileStore,
  ) {}

  async get(serverId: string, name: string): Promise<string | undefined> {
    try {
      return (await this.keychain.get(serverId, name)) ?? (await this.file.get(serverId, name));
    } catch (err) {
      // The keychain stopped answering: the file's value, where it has one, is the one it held.
      const value = await this.file.get(serverId, name);
      if (value === undefined) throw err;
      return value;
    }
  }

  async set(serverId: string, name: string, value: string): Promise<void> {
    await this.keychain.set(serverId, name, value);
  }

  async delete(serverId: string, name: string): Promise<void> {
    await this.keychain.delete(serverId, name);
    await this.file.delete(serverId, name);
  }

  known(): readonly string[] {
    const from: [readonly string[], readonly string[]] = [this.keychain.known(), this.file.known()];
    if (from[0] !== this.#from[0] || from[1] !== this.#from[1]) {
      this.#from = from;
      this.#known = [...new Set([...from[1], ...from[0]])];
    }
    return this.#known;
  }
}
