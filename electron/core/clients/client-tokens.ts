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
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync, type BigIntStats } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { newToken, tokensEqual } from '../files/access-token.js';
import { AtomicFile } from '../files/atomic-file.js';

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
/** The key of the revoked tokens' hashes in the file (no client has that id; older versions skip it, not being text). */
const REVOKED = 'revoked';
/** The key of the clients' last-seen times (ISO) in the file; older versions skip it, not being text. */
const SEEN = 'seen';
/** A client's last-seen time is moved (and the file written) only once it is this much older. */
export const SEEN_STEP_MS = 60_000;
/** Revoked tokens remembered per client, the newest last. */
const KEEP_REVOKED = 10;

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

interface TokensFile {
  tokens: Map<string, string>;
  revoked: Map<string, string[]>;
  seen: Map<string, string>;
}

/** A change this store made and has not written yet: a new token for a client, or one of its tokens revoked. */
type Change = { id: string; token: string } | { id: string; revokedHash: string };

/** Puts one change of this store over what the file holds. */
function applyChange(into: TokensFile, change: Change): void {
  if ('token' in change) {
    into.tokens.set(change.id, change.token);
    return;
  }
  const current = into.tokens.get(change.id);
  // Only the token this store revoked goes: one another process wrote since stays.
  if (current !== undefined && hashOf(current) === change.revokedHash) into.tokens.delete(change.id);
  const hashes = into.revoked.get(change.id) ?? [];
  if (!hashes.includes(change.revokedHash)) into.revoked.set(change.id, [...hashes, change.revokedHash].slice(-KEEP_REVOKED));
}

/** Keeps the newer last-seen time of each client. */
function mergeSeen(into: Map<string, string>, from: Map<string, string>): void {
  for (const [id, time] of from) {
    const other = into.get(id);
    if (other === undefined || Date.parse(time) > Date.parse(other)) into.set(id, time);
  }
}

/** The file's text; undefined when there is none. */
function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    return unlessMissing(err);
  }
}

/** The tokens a file's text holds, the hashes of those it revoked and when clients were last seen; no text or text that is not JSON holds none. */
function parseTokens(text: string | undefined): TokensFile {
  const tokens = new Map<string, string>();
  const revoked = new Map<string, string[]>();
  const seen = new Map<string, string>();
  let parsed: unknown;
  try {
    parsed = text === undefined ? undefined : JSON.parse(text);
  } catch (err) {
    if (err instanceof SyntaxError) return { tokens, revoked, seen };
    throw err;
  }
  if (isObject(parsed)) {
    for (const [id, token] of Object.entries(parsed)) if (typeof token === 'string' && token.length >= 16) tokens.set(id, token);
    const gone = parsed[REVOKED];
    if (isObject(gone)) {
      for (const [id, hashes] of Object.entries(gone)) {
        if (!Array.isArray(hashes)) continue;
        const texts = hashes.filter((h): h is string => typeof h === 'string');
        revoked.set(id, texts);
      }
    }
    const times = parsed[SEEN];
    if (isObject(times)) {
      for (const [id, time] of Object.entries(times)) if (typeof time === 'string' && !Number.isNaN(Date.parse(time))) seen.set(id, time);
    }
  }
  return { tokens, revoked, seen };
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
  /** The file's text as read under the lock of the write under way, for its render. */
  #lockedText: string | undefined;
  /** Counts the maps' changes from the file and the ends of writes, so a look that waited can tell it was overtaken. */
  #looks = 0;
  readonly #file: AtomicFile;

  private constructor(readonly file: string) {
    // A write's text starts from the file as it is under the write's lock (beforeWrite runs once it is held).
    const beforeWrite = async () => {
      this.#lockedText = await readFile(file, 'utf8').catch(unlessMissing);
    };
    this.#file = new AtomicFile(file, () => this.#render(), { mode: 0o600, lock: true, beforeWrite });
  }

  static async open(file: string): Promise<ClientTokens> {
    const store = new ClientTokens(file);
    store.#reloadIfChanged();
    return store;
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
    applyChange({ tokens: this.#tokens, revoked: this.#revoked, seen: this.#seen }, change);
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
    this.#take(parseTokens(readText(this.file)));
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
    this.#take(parseTokens(text));
    this.#version = version;
  }

  /** Takes what the file holds, with this store's unwritten changes and newer last-seen times put over it. */
  #take(now: TokensFile): void {
    for (const change of [...this.#writing, ...this.#pending]) applyChange(now, change);
    mergeSeen(now.seen, this.#seen);
    ({ tokens: this.#tokens, revoked: this.#revoked, seen: this.#seen } = now);
    this.#looks++;
  }

  /** The text of a write, made under its lock: the file as it is now, with this store's changes over it. */
  #render(): string {
    this.#take(parseTokens(this.#lockedText));
    this.#writing = this.#pending;
    this.#pending = [];
    return `${JSON.stringify(this.#content(), null, 2)}\n`;
  }

  /**
   * What the file holds: `{ <client id>: <token>, …, "revoked": { <client id>: [<sha256 of a token>, …] },
   * "seen": { <client id>: <ISO time>, … } }`.
   */
  #content(): Record<string, unknown> {
    const out: Record<string, unknown> = Object.fromEntries(this.#tokens);
    if (this.#revoked.size > 0) out[REVOKED] = Object.fromEntries(this.#revoked);
    if (this.#seen.size > 0) out[SEEN] = Object.fromEntries(this.#seen);
    return out;
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
