/**
 * The fallback backend where no keychain answers (a Linux machine without the Secret Service, a
 * headless server): every secret in one file, `secrets.enc`, encrypted with AES-256-GCM under a random
 * key kept in `secrets.key` beside it. Both files are mode 0600 in the 0700 data folder.
 *
 * What this protects, honestly: the values are out of config.json (which people paste, sync and share),
 * unreadable to anyone who has only secrets.enc (a backup, a synced copy without the key), and any change
 * to the file is detected (GCM's tag) instead of silently yielding wrong values. It does NOT protect
 * against someone who can read the data folder as this user: the key sits next to the file. The status
 * reports this store as `encrypted-file` so that the user can tell it from the keychain.
 */
import { createCipheriv, createDecipheriv, randomBytes, randomInt } from 'node:crypto';
import { link, open, readFile, rm, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { renameOver, syncFolder, writeAll, writeAtomically } from '../files/atomic-file.js';
import { KnownValues, SecretStoreError, type SecretStore } from './secret-store.js';

export const SECRETS_FILE = 'secrets.enc';
export const SECRETS_KEY_FILE = 'secrets.key';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const FORMAT = 1;

/** The file's JSON form: base64 fields around the encrypted JSON map of `serverId/name` → value. */
interface SealedFile {
  version: number;
  iv: string;
  tag: string;
  data: string;
}

async function readOptional(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * The key from secrets.key (undefined when there is none), created on first use when `create` says so.
 * An empty key file beside no secrets.enc counts as none: an older version left one when the disk filled
 * up as it wrote the key, and nothing was ever encrypted with it.
 */
async function loadKey(path: string, create: boolean): Promise<Buffer | undefined> {
  const existing = await readOptional(path);
  const leftover = existing?.length === 0 && (await readOptional(join(dirname(path), SECRETS_FILE))) === undefined;
  if (existing && !leftover) {
    if (existing.length !== KEY_BYTES)
      throw new SecretStoreError(
        `${path} is not a Spillway secrets key (wrong length). Restore it from a backup, or remove it together with ${SECRETS_FILE} and enter the secrets again.`,
      );
    return existing;
  }
  if (!create) return undefined;
  // Two processes that both find the leftover may both replace it; they would clobber each other's
  // secrets.enc as well, so that case is no worse than two first writes already were.
  if (leftover) await rm(path, { force: true });
  const key = randomBytes(KEY_BYTES);
  try {
    await placeKey(path, key);
    return key;
  } catch (err) {
    // Another process created it first: use theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return loadKey(path, false);
    throw err;
  }
}

/** Errors of a file system without hard links (FAT, some network shares). */
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);

/**
 * Writes a new key to `path` whole or not at all, never over an existing one (EEXIST then): through a
 * synced 0600 temp file linked into place, so a disk that fills up part way leaves no key rather than a
 * short one that would refuse every later save.
 */
async function placeKey(path: string, key: Buffer): Promise<void> {
  const temp = `${path}.${randomInt(2 ** 47)}`;
  let handle: FileHandle | undefined;
  try {
    handle = await open(temp, 'wx', 0o600);
    await writeAll(handle, key);
    await handle.sync();
    await handle.close();
    handle = undefined;
    try {
      await link(temp, path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (!NO_LINKS.has(code)) throw err;
      // No hard links here: checked, then renamed (the narrow race is another process's first key).
      if ((await readOptional(path)) !== undefined) throw Object.assign(new Error(`${path} exists`), { code: 'EEXIST' });
      await renameOver(temp, path);
    }
  } finally {
    await handle?.close().catch(() => undefined);
    await rm(temp, { force: true }).catch(() => undefined);
  }
  await syncFolder(dirname(path));
}

export function seal(key: Buffer, values: Record<string, string>): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(JSON.stringify(values), 'utf8'), cipher.final()]);
  const sealed: SealedFile = {
    version: FORMAT,
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    data: data.toString('base64'),
  };
  return `${JSON.stringify(sealed)}\n`;
}

export function unseal(key: Buffer, text: string, path: string): Record<string, string> {
  const damaged = (why: string) =>
    new SecretStoreError(
      `${path} cannot be read: ${why}. Restore it (and ${SECRETS_KEY_FILE}) from a backup, or remove both and enter the servers' secrets again.`,
    );
  let sealed: Partial<SealedFile>;
  try {
    sealed = JSON.parse(text) as Partial<SealedFile>;
  } catch {
    throw damaged('it is not valid JSON');
  }
  if (sealed.version !== FORMAT || typeof sealed.iv !== 'string' || typeof sealed.tag !== 'string' || typeof sealed.data !== 'string')
    throw damaged('it is not in the format this version writes');
  let plain: string;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    plain = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    throw damaged(`it was changed outside Spillway, or ${SECRETS_KEY_FILE} is not the key it was written with`);
  }
  const values = JSON.parse(plain) as unknown;
  if (!values || typeof values !== 'object' || Array.isArray(values)) throw damaged('its content is not a map of values');
  return Object.fromEntries(Object.entries(values).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

export class EncryptedFileStore implements SecretStore {
  readonly kind = 'encrypted-file';
  readonly #known = new KnownValues();
  #write: Promise<void> = Promise.resolve();

  private constructor(
    readonly path: string,
    private readonly keyPath: string,
    private readonly values: Map<string, string>,
    private key: Buffer | undefined,
  ) {
    for (const [k, v] of values) this.#known.note(k, v);
  }

  /** Opens the store of a data folder; throws SecretStoreError when the file is damaged or its key does not fit. */
  static async open(dataDir: string): Promise<EncryptedFileStore> {
    const path = join(dataDir, SECRETS_FILE);
    const keyPath = join(dataDir, SECRETS_KEY_FILE);
    const text = await readOptional(path);
    if (!text) return new EncryptedFileStore(path, keyPath, new Map(), await loadKey(keyPath, false));
    const key = await loadKey(keyPath, false);
    if (!key)
      throw new SecretStoreError(
        `${path} cannot be read: its key ${SECRETS_KEY_FILE} is missing. Restore it from a backup, or remove ${SECRETS_FILE} and enter the servers' secrets again.`,
      );
    return new EncryptedFileStore(path, keyPath, new Map(Object.entries(unseal(key, text.toString('utf8'), path))), key);
  }

  async get(serverId: string, name: string): Promise<string | undefined> {
    return this.values.get(`${serverId}/${name}`);
  }

  async set(serverId: string, name: string, value: string): Promise<void> {
    const key = `${serverId}/${name}`;
    if (this.values.get(key) === value) return;
    this.values.set(key, value);
    this.#known.note(key, value);
    await this.#save();
  }

  async delete(serverId: string, name: string): Promise<void> {
    const key = `${serverId}/${name}`;
    if (!this.values.delete(key)) return;
    this.#known.note(key, undefined);
    await this.#save();
  }

  /** Forgets several values with one write (those now in the keychain, see move-file-secrets.ts). */
  async deleteMany(entries: readonly { serverId: string; name: string }[]): Promise<void> {
    let changed = false;
    for (const { serverId, name } of entries) changed = this.values.delete(`${serverId}/${name}`) || changed;
    if (changed) await this.#save();
  }

  known(): readonly string[] {
    return this.#known.list();
  }

  /** Every value the file holds, with its server id and name (to move them into the keychain). */
  entries(): { serverId: string; name: string; value: string }[] {
    return [...this.values].map(([key, value]) => {
      const at = key.indexOf('/');
      return { serverId: key.slice(0, at), name: key.slice(at + 1), value };
    });
  }

  /** One write at a time, each with every value as of its turn. */
  #save(): Promise<void> {
    const next = this.#write
      .catch(() => undefined)
      .then(async () => {
        this.key ??= await loadKey(this.keyPath, true);
        await writeAtomically(this.path, Buffer.from(seal(this.key!, Object.fromEntries(this.values)), 'utf8'), 0o600);
      });
    this.#write = next;
    return next;
  }
}
