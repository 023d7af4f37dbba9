import { readdir, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AtomicFile, removeStaleTemps } from '../files/atomic-file.js';
import { isValidHandle } from './spill-handle.js';
import { countLines, type ResultView, type SpillContentType, type SpooledView } from './result-view.js';
import { fileNames, markSetAside, strayFolders, type PreparedFiles, type SpillOrigin } from './spill-files.js';
import type { StoredFiles } from './spill-recovery.js';
import type { SpillMeta } from './spill-store.js';
import { UNKNOWN_ORIGIN } from './spill-types.js';

/** A binary block kept as its own file inside the entry's folder. */
export interface SpillBinaryFile {
  index: number;
  kind: 'image' | 'audio' | 'blob';
  mimeType: string;
  file: string;
}

/** One spilled result as the index records it. Times are epoch milliseconds. */
export interface SpillEntry {
  handle: string;
  /** Full base32 sha256 of the serialized result; the handle is its prefix. */
  hash: string;
  server: string;
  tool: string;
  client: string | null;
  createdAt: number;
  /**
   * When the result was last kept (its first put or a later put of the same content): the retention in
   * Settings counts from then, also once lowered (retainedUntil). Absent in indexes older versions wrote.
   */
  keptAt?: number;
  expiresAt: number;
  lastAccess: number;
  /** UTF-8 size of the complete serialized CallToolResult. */
  bytes: number;
  /** UTF-8 size of the text view. */
  textBytes: number;
  /** Size of the entry's files on disk, what the quota counts. */
  diskBytes: number;
  lines: number;
  /** Tokens of the text view plus media, null when not counted. */
  tokens: number | null;
  tokensEstimated: boolean;
  contentType: SpillContentType;
  textFromStructured: boolean;
  files: string[];
  binary: SpillBinaryFile[];
  /**
   * Kept with personal data masked (PII maskResults): the text has placeholders only the call that made
   * them could restore, so its values cannot be passed on (dispatch's argumentsFrom). Absent: not masked.
   */
  masked?: boolean;
}

/** The entry of a result about to be written (see SpillStore.plan). */
export function plannedEntry(
  result: CallToolResult,
  view: ResultView | SpooledView,
  files: PreparedFiles,
  at: { handle: string; now: number; expiresAt: number; meta: SpillMeta; bytes: number | undefined },
): SpillEntry {
  const { meta, now } = at;
  return {
    handle: at.handle,
    hash: files.hash,
    server: meta.server,
    tool: meta.tool,
    client: meta.client ?? null,
    createdAt: now,
    keptAt: now,
    expiresAt: at.expiresAt,
    lastAccess: now,
    bytes: at.bytes ?? Buffer.byteLength(JSON.stringify(result), 'utf8'),
    textBytes: files.textBytes,
    diskBytes: files.diskBytes,
    lines: 'lines' in view ? view.lines : countLines(view.text),
    tokens: meta.tokens?.tokens ?? null,
    tokensEstimated: meta.tokens?.estimated ?? true,
    contentType: view.contentType,
    textFromStructured: 'textFromStructured' in view ? view.textFromStructured : false,
    files: fileNames(files),
    binary: files.binaryFiles.map(({ index, kind, mimeType, file }) => ({ index, kind, mimeType, file })),
    ...(meta.masked ? { masked: true } : {}),
  };
}

/**
 * The entry of a complete result folder the index did not list (readCompleteFolder), made `createdAt`
 * (when it was written) and kept `ttlMs` from then. Who made it is in its ORIGIN_FILE; a folder without one
 * (an older Spillway kept it) reads "unknown" and is taken for masked, so that no placeholder is passed on as a value.
 */
export function recoveredEntry(handle: string, stored: StoredFiles, createdAt: number, ttlMs: number, origin: SpillOrigin | undefined): SpillEntry {
  const binaryBase64 = stored.diskBytes - stored.skeletonBytes - stored.textBytes;
  return {
    handle,
    hash: stored.hash,
    server: origin?.server ?? UNKNOWN_ORIGIN,
    tool: origin?.tool ?? UNKNOWN_ORIGIN,
    client: origin?.client ?? null,
    createdAt,
    keptAt: createdAt,
    expiresAt: createdAt + ttlMs,
    lastAccess: createdAt,
    // About the size the upstream sent: the exact one is not in the files.
    bytes: stored.skeletonBytes + stored.textBytes + Math.ceil(binaryBase64 / 3) * 4,
    textBytes: stored.textBytes,
    diskBytes: stored.diskBytes,
    lines: stored.lines,
    tokens: null,
    tokensEstimated: true,
    contentType: stored.contentType,
    textFromStructured: stored.textFromStructured,
    files: stored.files,
    binary: stored.binary,
    ...(origin?.masked === false ? {} : { masked: true }),
  };
}

/**
 * What a later put of the same content (`by`) changes in the entry `kept`: its owner, when it was kept and
 * last access; the expiry only grows. A mark that it is masked stays: the same text has the same placeholders.
 */
export function refreshOf(
  kept: SpillEntry,
  by: SpillEntry,
): Pick<SpillEntry, 'server' | 'tool' | 'client' | 'keptAt' | 'expiresAt' | 'lastAccess' | 'masked'> {
  return {
    server: by.server,
    tool: by.tool,
    client: by.client,
    keptAt: by.keptAt,
    expiresAt: Math.max(kept.expiresAt, by.expiresAt),
    lastAccess: by.lastAccess,
    ...(kept.masked || by.masked ? { masked: true } : {}),
  };
}

/**
 * When `entry` expires under a retention of `ttlMs`: its expiry, or sooner when the retention was lowered
 * since it was kept (`keptAt`, which SpillIndexFile.load fills in for an older index; else when it was made).
 */
export function retainedUntil(entry: SpillEntry, ttlMs: number): number {
  return Math.min(entry.expiresAt, (entry.keptAt ?? entry.createdAt) + ttlMs);
}

const INDEX_VERSION = 1;
const FILE_NAME = /^[a-z0-9][a-z0-9.-]{0,63}$/;

export function serializeIndex(entries: SpillEntry[]): string {
  return JSON.stringify({ version: INDEX_VERSION, entries });
}

/**
 * Entries of an index file; null when the file is not an index. Malformed entries are dropped, and so
 * is any whose handle or file names would not stay inside the spill folder.
 */
export function parseIndex(raw: string): SpillEntry[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!isRecord(parsed) || parsed.version !== INDEX_VERSION || !Array.isArray(parsed.entries)) return null;
  return parsed.entries.filter(isEntry);
}

function isEntry(value: unknown): value is SpillEntry {
  if (!isRecord(value)) return false;
  const numbers = ['createdAt', 'expiresAt', 'lastAccess', 'bytes', 'textBytes', 'diskBytes', 'lines'] as const;
  return (
    isValidHandle(value.handle) &&
    typeof value.hash === 'string' &&
    value.hash.startsWith(value.handle) &&
    typeof value.server === 'string' &&
    typeof value.tool === 'string' &&
    (value.client === null || typeof value.client === 'string') &&
    numbers.every((key) => typeof value[key] === 'number' && Number.isFinite(value[key])) &&
    (value.keptAt === undefined || (typeof value.keptAt === 'number' && Number.isFinite(value.keptAt))) &&
    (value.tokens === null || typeof value.tokens === 'number') &&
    typeof value.tokensEstimated === 'boolean' &&
    ['json', 'text', 'mixed', 'binary'].includes(value.contentType as string) &&
    typeof value.textFromStructured === 'boolean' &&
    (value.masked === undefined || typeof value.masked === 'boolean') &&
    Array.isArray(value.files) &&
    value.files.every((f) => typeof f === 'string' && FILE_NAME.test(f)) &&
    Array.isArray(value.binary) &&
    value.binary.every(
      (b) => isRecord(b) && typeof b.index === 'number' && typeof b.mimeType === 'string' && typeof b.file === 'string' && FILE_NAME.test(b.file),
    )
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Copies of unreadable index files kept beside the index (the newest ones), for someone to look into. */
const SET_ASIDE_KEPT = 3;

/** How long `saveSoon` waits, so that a run of spilled calls writes the index once. */
const SAVE_SOON_MS = 1000;

/**
 * The index file: read once at open, written atomically (files/atomic-file.ts) after changes. Saves are
 * coalesced: calls made while a write is pending share the next write of the latest snapshot.
 */
export class SpillIndexFile {
  readonly path: string;
  readonly #file: AtomicFile;
  #soon: NodeJS.Timeout | undefined;

  /** `beforeWrite` runs before each write, before `snapshot` is taken (the store syncs new entries there). */
  constructor(path: string, snapshot: () => SpillEntry[], beforeWrite?: () => Promise<void>) {
    this.path = path;
    this.#file = new AtomicFile(path, () => serializeIndex(snapshot()), { mode: 0o600, ...(beforeWrite ? { beforeWrite } : {}) });
  }

  /**
   * The entries on disk; null when there is no index yet; 'corrupt' when the file is not an index. Read
   * once, at open: temp files an interrupted save left beside it are removed first.
   */
  async read(): Promise<SpillEntry[] | null | 'corrupt'> {
    await removeStaleTemps(this.path);
    let raw: string;
    try {
      raw = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    return parseIndex(raw) ?? 'corrupt';
  }

  /**
   * The entries to start with, read once at open. An index that cannot be read fails nothing: the store
   * starts empty and the file is set aside. `complete` is then false: the result folders on disk may be
   * ones it listed, so the store must not take them for leftovers in this run (it used to delete every one).
   * When the file is not an index, what it listed can never be read again: those folders are marked to be
   * removed at the next start (README). Entries of an older index, without keptAt, are taken as kept with
   * the retention of now (`ttlMs`), so that a lower one applies to them.
   */
  async load(now: number, ttlMs: number, log: (message: string, error?: unknown) => void): Promise<{ entries: SpillEntry[]; complete: boolean }> {
    let entries: SpillEntry[] | null | 'corrupt';
    try {
      entries = await this.read();
    } catch (error) {
      log('The spill index could not be read, so results kept before are not listed; their folders are left in place.', error);
      return { entries: [], complete: false };
    }
    if (entries !== 'corrupt') {
      const keptAt = (e: SpillEntry) => e.keptAt ?? Math.max(e.createdAt, e.expiresAt - ttlMs);
      return { entries: (entries ?? []).map((e) => ({ ...e, keptAt: keptAt(e) })), complete: true };
    }
    try {
      const copy = await this.setAside(now);
      log(
        `The spill index was damaged or written by a newer Spillway, so results kept before are not listed. ` +
          `It was set aside as ${copy} and their folders are left in place until Spillway restarts (then removed); new results are kept as usual.`,
      );
    } catch (error) {
      log('The spill index was damaged and could not be set aside; results kept before are not listed.', error);
    }
    try {
      await markSetAside(await strayFolders(dirname(this.path), () => false));
    } catch (error) {
      log('The result folders of the damaged spill index could not be marked for removal at the next start.', error);
    }
    return { entries: [], complete: false };
  }

  /**
   * Renames an unreadable index file aside, as `index.json.corrupt-<time>`, so that the next save does not
   * overwrite what it held (a damaged file, or one a newer Spillway wrote); only the newest few copies are
   * kept. Returns the copy's name.
   */
  async setAside(now: number): Promise<string> {
    const folder = dirname(this.path);
    const prefix = `${basename(this.path)}.corrupt-`;
    // A time without ':' (Windows file names refuse it), so that sorting the names sorts the copies, oldest first.
    const name = `${prefix}${new Date(now).toISOString().replace(/[:.]/g, '-')}`;
    await rename(this.path, join(folder, name));
    const copies = (await readdir(folder)).filter((n) => n.startsWith(prefix)).sort();
    for (const old of copies.slice(0, Math.max(0, copies.length - SET_ASIDE_KEPT))) await rm(join(folder, old), { force: true });
    return name;
  }

  save(): Promise<void> {
    clearTimeout(this.#soon);
    this.#soon = undefined;
    return this.#file.save();
  }

  /**
   * Saves within SAVE_SOON_MS, once for all the changes made until then; `onError` hears of a failed
   * write. What the index does not know after a crash is removed at the next open.
   */
  saveSoon(onError: (error: unknown) => void): void {
    if (this.#soon) return;
    this.#soon = setTimeout(() => void this.save().catch(onError), SAVE_SOON_MS);
    this.#soon.unref();
  }

  /** Writes what `saveSoon` still holds back, then resolves when no write is pending (errors are the savers' to handle). */
  settled(): Promise<void> {
    if (this.#soon) void this.save().catch(() => undefined);
    return this.#file.settled();
  }
}

/**
 * The entries to evict until the rest fit in `quota` (never those `held`): those expired at `now` first
 * (they would go at the next cleanup anyway), then the least recently used.
 */
export function overQuota(entries: SpillEntry[], quota: number, now: number, held: (handle: string) => boolean): SpillEntry[] {
  let total = entries.reduce((sum, e) => sum + e.diskBytes, 0);
  const evict: SpillEntry[] = [];
  const live = (e: SpillEntry) => (e.expiresAt > now ? 1 : 0);
  for (const entry of [...entries].sort((a, b) => live(a) - live(b) || a.lastAccess - b.lastAccess)) {
    if (total <= quota) break;
    if (held(entry.handle)) continue;
    evict.push(entry);
    total -= entry.diskBytes;
  }
  return evict;
}
