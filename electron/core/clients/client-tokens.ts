/**
 * One bearer token per connected client, so the hub knows which client is calling and one can be revoked
 * without touching the others. Kept owner-only in `<dataDir>/client-tokens.json`.
 *
 * The file is shared: `spillway clients connect` may write it while a hub runs. So the store reads it
 * again whenever it changed on disk (checked before each change, and on a token it does not know), and a
 * new client entry works at once, without a restart (issue 13, item 5). Each write holds a lock file the
 * other processes' writes wait for, and reads the file again when its text is made: it keeps the tokens
 * and revocations found there, adds this store's own changes since its last write, and keeps the newer of
 * each last-seen time. So two overlapping writers both keep what they wrote (audit s15).
 *
 * It also keeps when each client was last seen, so the Clients view still shows it after a restart. That
 * time moves in steps of at least a minute (SEEN_STEP_MS): every request of a client passes here, and the
 * file is written at most once a minute per client.
 *
 * A file that cannot be read (client-tokens-file.ts) is never written over: it is set aside, at open or
 * under the lock of the next write, and the user is told to connect the apps again (audit s16). One found
 * damaged while running leaves the tokens read before in use, and the write puts them back.
 */
import { readFileSync, statSync, type BigIntStats } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { newToken, tokensEqual } from '../files/access-token.js';
import { AtomicFile, lockFile } from '../files/atomic-file.js';
import {
  applyChange,
  hashOf,
  mergeSeen,
  notSetAside,
  parseTokens,
  setAsideAtOpen,
  setAsideAtWrite,
  setAsideDamaged,
  tokensText,
  type Change,
  type DamagedFile,
  type TokensFile,
} from './client-tokens-file.js';

/** What a missing file reads as (undefined) for the calls below; other errors are thrown. */
function unlessMissing(err: unknown): undefined {
  if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
  throw err;
}

/** What identifies one version of the file (a rename gives a new inode, so an atomic write always shows). */
function versionOf(s: BigIntStats | undefined): string | undefined {
  return s && `${s.ino}:${s.mtimeNs}:${s.size}`;
}

function fileVersion(file: string): string | undefined {
  try {
    return versionOf(statSync(file, { bigint: true }));
  } catch (err) {
    return unlessMissing(err);
  }
}

/** The file's version without blocking, for the per-request path. */
async function fileVersionSoon(file: string): Promise<string | undefined> {
  return versionOf(await stat(file, { bigint: true }).catch(unlessMissing));
}

/** A file version no file has: the file is read on the next look. */
const UNREAD = Symbol('unread');
/** A client's last-seen time is moved (and the file written) only once it is this much older. */
export const SEEN_STEP_MS = 60_000;

/** The file's text; undefined when there is none. */
function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    return unlessMissing(err);
  }
}

export interface ClientTokensOptions {
  /** Hears what the user should know: a damaged file set aside, and what to do next. */
  log?: (message: string) => void;
}

export class ClientTokens {
  #tokens = new Map<string, string>();
  /**
   * Hashes of the tokens this folder revoked, per client. None is ever valid again; an entry holding one was
   * written from here: Restore may take it back, and rewrites it with a new token when it brings it back,
   * while drift repair leaves it alone (its app was disconnected).
   */
  #revoked = new Map<string, string[]>();
  /** When each client last talked to a hub of this folder (ISO), to the minute (SEEN_STEP_MS). */
  #seen = new Map<string, string>();
  /** This store's changes not yet in a write's text, put over the file's content whenever it is read. */
  #pending: Change[] = [];
  /** The changes in the text of the write under way: also put over the file's content until it is done. */
  #writing: Change[] = [];
  /**
   * The version of the file the maps were read from; after a write, none (UNREAD): the file is read again
   * on the next look, as another process may have written it right after.
   */
  #version: string | undefined | typeof UNREAD = UNREAD;
  /** Keys of the file this version does not know, written back as read. */
  #unknown: TokensFile['unknown'] = [];
  /** The file as read under the lock of the write under way, for its render; undefined when it was damaged and set aside. */
  #locked: TokensFile | undefined;
  /** Counts the maps' changes from the file and the ends of writes, so a look that waited can tell it was overtaken. */
  #looks = 0;
  readonly #file: AtomicFile;
  readonly #log: (message: string) => void;

  private constructor(
    readonly file: string,
    options: ClientTokensOptions,
  ) {
    // Callers that pass no log still have the warning said (the CLI's terminal, the hub's output).
    this.#log = options.log ?? ((message) => console.warn(message));
    // A write's text starts from the file as it is under the write's lock (beforeWrite runs once it is held).
    const beforeWrite = async () => {
      const read = parseTokens(await readFile(file, 'utf8').catch(unlessMissing));
      this.#locked = 'damaged' in read ? await this.#setAsideForWrite(read) : read;
    };
    this.#file = new AtomicFile(file, () => this.#render(), { mode: 0o600, lock: true, beforeWrite });
  }

  /** Opens the store; a file that cannot be read is set aside first, with a warning (the store then starts empty). */
  static async open(file: string, options: ClientTokensOptions = {}): Promise<ClientTokens> {
    const store = new ClientTokens(file, options);
    const read = parseTokens(readText(file));
    if ('damaged' in read) await store.#setAsideAtOpen(read);
    store.#reloadIfChanged();
    return store;
  }

  /** Sets a damaged file aside under the writers' lock, unless a write replaced it meanwhile; a failure is told, not thrown. */
  async #setAsideAtOpen(read: DamagedFile): Promise<void> {
    try {
      const release = await lockFile(this.file);
      try {
        const now = parseTokens(await readFile(this.file, 'utf8').catch(unlessMissing));
        if ('damaged' in now) this.#log(setAsideAtOpen(now.damaged, await setAsideDamaged(this.file)));
      } finally {
        await release();
      }
    } catch (err) {
      this.#log(notSetAside(read.damaged, err));
    }
  }

  /** Sets the damaged file a write found aside (it holds the lock); when that fails the write fails, leaving the file as it is. */
  async #setAsideForWrite(read: DamagedFile): Promise<undefined> {
    let aside: string;
    try {
      aside = await setAsideDamaged(this.file);
    } catch (err) {
      this.#log(notSetAside(read.damaged, err));
      throw new Error(`client-tokens.json is unreadable (${read.damaged}) and could not be moved aside: fix or remove it, then try again`, {
        cause: err,
      });
    }
    this.#log(setAsideAtWrite(read.damaged, aside));
    return undefined;
  }

  get(clientId: string): string | undefined {
    this.#reloadIfChanged();
    return this.#tokens.get(clientId);
  }

  /** The client's token, created (and saved) on first use. */
  async ensure(clientId: string): Promise<string> {
    this.#reloadIfChanged();
    const existing = this.#tokens.get(clientId);
    if (existing) return existing;
    const token = newToken();
    this.#tokens.set(clientId, token);
    this.#pending.push({ id: clientId, token });
    await this.#save();
    return token;
  }

  async revoke(clientId: string): Promise<boolean> {
    this.#reloadIfChanged();
    const token = this.#tokens.get(clientId);
    if (token === undefined) return false;
    const change = { id: clientId, revokedHash: hashOf(token) };
    applyChange({ tokens: this.#tokens, revoked: this.#revoked }, change);
    this.#pending.push(change);
    await this.#save();
    return true;
  }

  /** Whether this folder gave `token` to that client and revoked it since (Disconnect). */
  revokedHere(clientId: string, token: string): boolean {
    this.#reloadIfChanged();
    return (this.#revoked.get(clientId) ?? []).includes(hashOf(token));
  }

  /** The tokens known now (without reading the file again), for masking them wherever they appear. */
  known(): string[] {
    return [...this.#tokens.values()];
  }

  /** When the client last talked to a hub of this folder (ISO time; up to a minute early), if ever. */
  lastSeen(clientId: string): string | undefined {
    this.#reloadIfChanged();
    return this.#seen.get(clientId);
  }

  /**
   * Notes that the client talked to the hub now; saved when its last-seen time is a minute old or more
   * (or unknown), so a busy client writes the file at most once a minute. Resolves once saved; a failed
   * write (a full disk) is dropped, as the time is only shown.
   */
  async noteSeen(clientId: string, now: Date = new Date()): Promise<void> {
    const recent = () => {
      const last = this.#seen.get(clientId);
      return last !== undefined && now.getTime() - Date.parse(last) < SEEN_STEP_MS;
    };
    if (recent()) return;
    // Every request passes here: the file is looked at only when the time would move, without blocking.
    // Asked again after it: an overlapping request of the same client may have moved the time meanwhile.
    await this.#reloadIfChangedSoon();
    if (recent()) return;
    this.#seen.set(clientId, now.toISOString());
    await this.#save().catch(() => undefined);
  }

  /** Which client holds this token (constant-time comparisons); a token written by another process since counts. */
  lookup(token: string): string | undefined {
    return this.#find(token) ?? (this.#reloadIfChanged() ? this.#find(token) : undefined);
  }

  #find(token: string): string | undefined {
    let found: string | undefined;
    for (const [id, t] of this.#tokens) if (tokensEqual(token, t)) found = id;
    return found;
  }

  /** Reads the file again when it changed since it was read (another process, or this store, wrote it); true when it did. */
  #reloadIfChanged(): boolean {
    const version = fileVersion(this.file);
    if (version === this.#version) return false;
    const read = parseTokens(readText(this.file));
    // A damaged file leaves the maps as they are; the next write sets it aside and puts them back.
    if (!('damaged' in read)) this.#take(read);
    this.#version = version;
    return true;
  }

  /**
   * The same without blocking, for the per-request path. A look or write of this store that ends while it
   * waits wins: what it read may be older than the maps are then, so it is dropped (a write leaves the file
   * to be read on the next look).
   */
  async #reloadIfChangedSoon(): Promise<void> {
    const looks = this.#looks;
    const version = await fileVersionSoon(this.file);
    if (version === this.#version) return;
    const text = await readFile(this.file, 'utf8').catch(unlessMissing);
    if (this.#looks !== looks) return;
    const read = parseTokens(text);
    if (!('damaged' in read)) this.#take(read);
    this.#version = version;
  }

  /** Takes what the file holds, with this store's unwritten changes and newer last-seen times put over it. */
  #take(now: TokensFile): void {
    for (const change of [...this.#writing, ...this.#pending]) applyChange(now, change);
    mergeSeen(now.seen, this.#seen);
    ({ tokens: this.#tokens, revoked: this.#revoked, seen: this.#seen, unknown: this.#unknown } = now);
    this.#looks++;
  }

  /** The text of a write, made under its lock: the file as it is now (the maps as they are when it was set aside), with this store's changes over it. */
  #render(): string {
    if (this.#locked) this.#take(this.#locked);
    this.#writing = this.#pending;
    this.#pending = [];
    return tokensText({ tokens: this.#tokens, revoked: this.#revoked, seen: this.#seen, unknown: this.#unknown });
  }

  /**
   * Writes the file; then it is read again on the next look. A failed write's changes are dropped with it
   * (the caller is told). This runs before the next write makes its text, which waits for the folder.
   */
  async #save(): Promise<void> {
    try {
      await this.#file.save();
    } finally {
      this.#writing = [];
      this.#version = UNREAD;
      this.#looks++;
    }
  }
}
