/**
 * One bearer token per connected client, so the hub knows which client is calling and one can be revoked
 * without touching the others. Kept owner-only in `<dataDir>/client-tokens.json`.
 *
 * The file is shared: `spillway clients connect` may write it while a hub runs. So the store reads it
 * again whenever it changed on disk (checked before each change, and on a token it does not know), and a
 * new client entry works at once, without a restart (issue 13, item 5).
 *
 * It also keeps when each client was last seen, so the Clients view still shows it after a restart. That
 * time moves in steps of at least a minute (SEEN_STEP_MS): every request of a client passes here, and the
 * file is written at most once a minute per client.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { newToken, tokensEqual } from '../files/access-token.js';
import { AtomicFile } from '../files/atomic-file.js';

/** What identifies one version of the file (a rename gives a new inode, so an atomic write always shows). */
function fileVersion(file: string): string | undefined {
  try {
    const s = statSync(file, { bigint: true });
    return `${s.ino}:${s.mtimeNs}:${s.size}`;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

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

/** The tokens a file holds, the hashes of those it revoked and when clients were last seen; a missing or unreadable JSON file holds none. */
function readTokens(file: string): TokensFile {
  const tokens = new Map<string, string>();
  const revoked = new Map<string, string[]>();
  const seen = new Map<string, string>();
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || err instanceof SyntaxError) return { tokens, revoked, seen };
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
  /** The version of the file the map was read from or last written to. */
  #version: string | undefined;
  readonly #file: AtomicFile;

  private constructor(readonly file: string) {
    this.#file = new AtomicFile(file, () => `${JSON.stringify(this.#content(), null, 2)}\n`, { mode: 0o600 });
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
    await this.#save();
    return token;
  }

  async revoke(clientId: string): Promise<boolean> {
    this.#reloadIfChanged();
    const token = this.#tokens.get(clientId);
    if (token === undefined) return false;
    this.#tokens.delete(clientId);
    this.#revoked.set(clientId, [...(this.#revoked.get(clientId) ?? []), hashOf(token)].slice(-KEEP_REVOKED));
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
    // Every request passes here: the file is looked at only when the time would move.
    if (recent() || (this.#reloadIfChanged() && recent())) return;
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

  /** Reads the file again when another process wrote it; true when it did. */
  #reloadIfChanged(): boolean {
    const version = fileVersion(this.file);
    if (version === this.#version) return false;
    ({ tokens: this.#tokens, revoked: this.#revoked, seen: this.#seen } = readTokens(this.file));
    this.#version = version;
    return true;
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

  async #save(): Promise<void> {
    await this.#file.save();
    this.#version = fileVersion(this.file);
  }
}
