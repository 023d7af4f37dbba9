/**
 * Secrets saved in secrets.enc (an older install, a start where no keychain answered) move into the
 * keychain at the first start where it answers; before, they were "not found" there. Each value is
 * written and read back; only when every one is in the keychain is the file retired, renamed to
 * `secrets.enc.moved-<time>` (still encrypted; secrets.key beside it stays, as the key to it). A value
 * the keychain already holds under the same name is kept, and the file's copy stays in the retired
 * file: the keychain's may be one entered again after the file's was "not found", and nothing is lost.
 * When a write fails, the writes stop, and secrets.enc is rewritten to hold only the values the keychain
 * lacks (after a copy of the whole file is retired, when the keychain held other values of some names):
 * it is read for those (see KeychainThenFile), also at a start where the keychain does not answer, until a
 * later start moves the rest. A value the keychain holds is never read from the file, whose copy of it may
 * be an older one. The log names the values, never shows them.
 */
import { readFile, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { syncFolder, writeAtomically } from '../files/atomic-file.js';
import { EncryptedFileStore, SECRETS_FILE, SECRETS_KEY_FILE } from './encrypted-file-store.js';
import type { KeychainStore } from './keychain-store.js';
import type { SecretStore } from './secret-store.js';

const reason = (err: unknown) => (err instanceof Error ? err.message : String(err));
const names = (labels: readonly string[]) => labels.join(', ');

/** The name a moved secrets.enc gets: `secrets.enc.moved-20250102T030405Z`. */
export const movedFileName = (at: Date) => `${SECRETS_FILE}.moved-${at.toISOString().replace(/[-:]|\.\d+/g, '')}`;

/** A value's place in a store. */
interface Named {
  serverId: string;
  name: string;
}

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
  /** The file's values whose names the keychain holds now (moved, or its own value kept). */
  const held: Named[] = [];
  let failure: unknown;
  for (const entry of file.entries()) {
    const { serverId, name, value } = entry;
    const label = `${name} of ${serverId}`;
    let there: string | undefined;
    try {
      there = await keychain.get(serverId, name);
    } catch (err) {
      // The keychain stopped answering: the rest stay in the file, as values it lacks.
      failure ??= err;
      break;
    }
    if (there !== undefined) {
      if (there !== value) kept.push(label);
      held.push(entry);
    } else if (failure === undefined) {
      // After a write failed, the rest are only looked up: those the keychain holds leave the file too.
      try {
        await keychain.set(serverId, name, value);
        if ((await keychain.get(serverId, name)) !== value) throw new Error(`the keychain did not give back the secret ${label} as written`);
        moved.push(label);
        held.push(entry);
      } catch (err) {
        failure = err;
      }
    }
  }
  if (failure === undefined) {
    const retired = movedFileName(new Date());
    try {
      await rename(path, join(dataDir, retired));
      await syncFolder(dataDir);
      log(
        (moved.length > 0 ? `Moved the secrets ${names(moved)} from ${SECRETS_FILE} into the system keychain. ` : '') +
          (kept.length > 0 ? `Kept the keychain's own values of ${names(kept)}; the file's other values of them stay in ${retired}. ` : '') +
          `${SECRETS_FILE} is now ${retired} (still encrypted, with ${SECRETS_KEY_FILE} as its key): remove both once your servers start with their keys.`,
      );
      return keychain;
    } catch (err) {
      log(`The secrets in ${SECRETS_FILE} are in the system keychain now, but the file could not be renamed to ${retired} (${reason(err)}).`);
    }
  } else {
    log(
      `Spillway could not move every secret from ${SECRETS_FILE} into the system keychain (${reason(failure)}). ` +
        `It reads what the keychain lacks from ${SECRETS_FILE} meanwhile, and tries again at the next start.`,
    );
  }
  await keepOnlyUnmoved(file, held, kept, dataDir, log);
  return new KeychainThenFile(keychain, file, held);
}

/**
 * Removes from secrets.enc the values whose names the keychain holds, so that no later start reads the
 * file's (perhaps older) copy of them. When the keychain kept its own value of some name, the whole file is
 * first copied to a retired name, so that the file's value of it is not lost.
 */
async function keepOnlyUnmoved(
  file: EncryptedFileStore,
  held: readonly Named[],
  kept: readonly string[],
  dataDir: string,
  log: (message: string) => void,
) {
  if (held.length === 0) return;
  try {
    if (kept.length > 0) {
      const retired = movedFileName(new Date());
      await writeAtomically(join(dataDir, retired), await readFile(file.path), 0o600);
      log(
        `Kept the keychain's own values of ${names(kept)}; the file's other values of them stay in ${retired} (still encrypted, with ${SECRETS_KEY_FILE} as its key).`,
      );
    }
    await file.deleteMany(held);
  } catch (err) {
    log(`Spillway could not remove the secrets now in the system keychain from ${SECRETS_FILE} (${reason(err)}); it tries again at the next start.`);
  }
}

/**
 * The keychain with what secrets.enc still holds behind it, at a start where the keychain does not answer:
 * the file holds only values a move left there, which the keychain lacked (see keepOnlyUnmoved).
 */
export async function keychainWithUnmoved(keychain: KeychainStore, dataDir: string, log: (message: string) => void): Promise<SecretStore> {
  if (!(await exists(join(dataDir, SECRETS_FILE)))) return keychain;
  try {
    return new KeychainThenFile(keychain, await EncryptedFileStore.open(dataDir));
  } catch (err) {
    log(`The secrets left in ${SECRETS_FILE} cannot be read, so they are asked of the system keychain only: ${reason(err)}`);
    return keychain;
  }
}

/**
 * The keychain with secrets.enc behind it, while not every value of the file could be moved: a value is
 * read from the keychain, else, for a name the keychain lacked when the file was moved, from the file (also
 * when the keychain stops answering). A name set or forgotten is set or forgotten in the keychain and
 * removed from the file, which never gets a new value: its old copy cannot come back, in this run or later.
 */
export class KeychainThenFile implements SecretStore {
  readonly kind = 'keychain';
  /** The `serverId/name` of the file's values that the keychain lacked: the only ones read from the file. */
  readonly #unmoved: Set<string>;
  #from: [readonly string[], readonly string[]] = [[], []];
  #known: readonly string[] = [];

  /** `held`: the names of the file that the keychain holds (its copies are never read from the file). */
  constructor(
    private readonly keychain: KeychainStore,
    private readonly file: EncryptedFileStore,
    held: readonly Named[] = [],
  ) {
    const inKeychain = new Set(held.map(({ serverId, name }) => `${serverId}/${name}`));
    this.#unmoved = new Set(
      file
        .entries()
        .map(({ serverId, name }) => `${serverId}/${name}`)
        .filter((key) => !inKeychain.has(key)),
    );
  }

  async #fromFile(serverId: string, name: string): Promise<string | undefined> {
    return this.#unmoved.has(`${serverId}/${name}`) ? this.file.get(serverId, name) : undefined;
  }

  async get(serverId: string, name: string): Promise<string | undefined> {
    let value: string | undefined;
    try {
      value = await this.keychain.get(serverId, name);
    } catch (err) {
      // The keychain stopped answering: a value it lacked is the file's; any other is refused, never answered from the file.
      const left = await this.#fromFile(serverId, name);
      if (left === undefined) throw err;
      return left;
    }
    return value ?? (await this.#fromFile(serverId, name));
  }

  async set(serverId: string, name: string, value: string): Promise<void> {
    await this.keychain.set(serverId, name, value);
    this.#unmoved.delete(`${serverId}/${name}`);
    await this.file.delete(serverId, name);
  }

  async delete(serverId: string, name: string): Promise<void> {
    await this.keychain.delete(serverId, name);
    this.#unmoved.delete(`${serverId}/${name}`);
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
