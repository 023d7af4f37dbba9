import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { LRUCache } from 'lru-cache';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { TokenCount, TokenCounter } from '../tokens/token-counter.js';
import { CUT_META_KEY, type SpooledString } from '../wire/raw-spool.js';
import { handleFor, isValidHandle } from './spill-handle.js';
import { viewResult } from './result-view.js';
import {
  DEFAULT_SPILL_QUOTA_BYTES,
  DEFAULT_SPILL_TTL_MS,
  handleMessages,
  overQuotaMessage,
  SpillWriteError,
  type SpillCleanupReport,
  type SpillLookup,
  type SpillMeta,
  type SpillPlan,
  type SpillPrepared,
  type SpillStoreOptions,
} from './spill-types.js';
import { documentCache, SpillDocument } from './spill-document.js';
import { PendingPuts } from './pending-puts.js';
import { removeSpooled } from '../wire/spooled-strings.js';
import {
  filesComplete,
  prepareFiles,
  readStoredResult,
  removeUnlisted,
  rewriteOrigin,
  TEXT_FILE,
  writeEntryFolder,
  type PreparedFiles,
} from './spill-files.js';
import { overQuota, plannedEntry, refreshOf, retainedUntil, SpillIndexFile, type SpillEntry } from './spill-index.js';
import { sortStrayFolders, unlistedFolders } from './spill-recovery.js';
import { UnsyncedEntries } from './unsynced-entries.js';

export type { SpillEntry, SpillBinaryFile } from './spill-index.js';

export * from './spill-types.js';

const INDEX_FILE = 'index.json';

/**
 * Complete tool results kept on disk, content-addressed, with an index of who made them and when they
 * expire. Layout: `<dir>/index.json`, and per handle `<dir>/<handle>/result.json` (the whole
 * CallToolResult, binary data moved out), `text.txt` (the text view) and `block-<i>.<ext>` files.
 */
export class SpillStore {
  readonly dir: string;
  /** Read at each put, cleanup and diskUsage, so that a quota or retention changed in the settings applies at once. */
  readonly #quota: () => number;
  readonly #ttl: () => number;
  readonly #now: () => number;
  readonly #counter: TokenCounter;
  readonly #log: (message: string, error?: unknown) => void;
  readonly #entries = new Map<string, SpillEntry>();
  readonly #documents: LRUCache<string, SpillDocument>;
  /** The puts under way: cleanup leaves their folders alone, reads of their handles wait for them. */
  readonly #puts: PendingPuts;
  /** Entries listed and readable here, left out of the index file until its next write has synced them. */
  readonly #unsynced: UnsyncedEntries;
  readonly #index: SpillIndexFile;
  /** False after an index that could not be read: for this run, result folders are not taken for leftovers (SpillIndexFile.load). */
  #indexComplete = true;
  /** The result folders a damaged index left on disk for this run (measured at open), until Clear removes them. */
  #unlisted = { folders: 0, bytes: 0 };

  private constructor(options: SpillStoreOptions) {
    this.dir = options.dir;
    this.#now = options.now;
    this.#counter = options.counter;
    const ttl = options.ttlMs ?? DEFAULT_SPILL_TTL_MS;
    this.#ttl = typeof ttl === 'number' ? () => ttl : ttl;
    const quota = options.quotaBytes ?? DEFAULT_SPILL_QUOTA_BYTES;
    this.#quota = typeof quota === 'number' ? () => quota : quota;
    this.#log = options.log ?? (() => {});
    this.#puts = new PendingPuts(this.dir);
    this.#unsynced = new UnsyncedEntries({
      dir: this.dir,
      entryOf: (handle) => this.#entries.get(handle),
      putUnderWay: (handle) => this.#puts.has(handle),
      remove: (handle) => this.#remove(handle),
      log: this.#log,
    });
    this.#index = new SpillIndexFile(
      join(this.dir, INDEX_FILE),
      () => [...this.#entries.values()].filter((entry) => !this.#unsynced.has(entry.handle)),
      () => this.#unsynced.sync(),
    );
    this.#documents = documentCache(options.cacheBytes ?? 64 * 1024 * 1024);
  }

  /**
   * Opens the store: reads the index, drops expired entries and entries whose files vanished, removes
   * leftovers. An unwritable folder does not fail here: every `put` then fails with SpillWriteError. The
   * folders of a damaged index stay for this run, marked to be removed at the next start (README).
   */
  static async open(options: SpillStoreOptions): Promise<SpillStore> {
    const store = new SpillStore(options);
    const { entries, complete } = await store.#index.load(store.#now(), store.ttlMs, store.#log);
    for (const entry of entries) store.#entries.set(entry.handle, entry);
    store.#indexComplete = complete;
    try {
      await store.cleanup();
    } catch (error) {
      store.#log('spill cleanup failed', error);
    }
    await store.#puts.measure();
    // Leftovers that cannot be measured are only not counted: the open does not fail for them.
    const listed = (name: string) => store.#entries.has(name) || store.#puts.has(name);
    if (!complete) store.#unlisted = await unlistedFolders(store.dir, listed).catch(() => store.#unlisted);
    return store;
  }

  /**
   * Keeps a complete result and returns its entry (the same content once: a second put refreshes owner,
   * expiry, last access); throws SpillWriteError when it cannot be kept, leaving nothing. The entry is
   * listed once its files are complete; the index follows within a second (files synced first): a crash in
   * between leaves a folder the index does not know, listed again at the next open (spill-recovery.ts).
   */
  async put(result: CallToolResult, meta: SpillMeta, prepared: SpillPrepared = {}): Promise<SpillEntry> {
    return this.plan(result, meta, prepared).write();
  }

  /**
   * `put` in two steps: the entry the result will have (handle, expiry, sizes) is known at once, before
   * anything is written, so a caller can prepare its answer while `write` keeps the result.
   */
  plan(result: CallToolResult, meta: SpillMeta, prepared: SpillPrepared = {}): SpillPlan {
    const view = prepared.view ?? viewResult(result);
    const files = prepareFiles(result, view);
    const handle = handleFor(files.hash, (candidate) => this.#known(candidate)?.hash);
    const now = this.#now();
    const existing = this.#entries.get(handle);
    const expiresAt = Math.max(existing?.expiresAt ?? 0, now + (meta.ttlMs ?? this.ttlMs));
    const entry = plannedEntry(result, view, files, { handle, now, expiresAt, meta, bytes: prepared.bytes });
    const spooled = view.parts.flatMap((p) => (typeof p.text === 'string' ? [] : [p.text]));
    // Only the start of a result the disk refused while it arrived (line-framer.ts): never kept as if whole.
    const cut = result._meta?.[CUT_META_KEY];
    return {
      entry: existing ? { ...existing, ...refreshOf(existing, entry) } : { ...entry },
      write: () => (typeof cut === 'string' ? Promise.reject(new SpillWriteError(cut)) : this.#write(entry, files, spooled)),
      // A result larger than the whole quota is never kept: its answer waits for the write to fail and says so.
      answerFirst:
        cut === undefined && files.diskBytes <= this.quotaBytes && this.#puts.hasRoomFor(files.diskBytes) && spooled.every((t) => t.fine()),
    };
  }

  #write(planned: SpillEntry, files: PreparedFiles, spooled: SpooledString[]): Promise<SpillEntry> {
    return this.#puts.run(
      planned,
      files.diskBytes,
      () => this.#keep(planned, files, spooled),
      (error) => (error as Error).message,
    );
  }

  async #keep(planned: SpillEntry, files: PreparedFiles, spooled: SpooledString[]): Promise<SpillEntry> {
    const { handle } = planned;
    let written = false;
    try {
      // Texts spooled as they arrived are complete first (their message may have come before).
      await Promise.all(spooled.map((text) => text.written));
      // Before a refresh too: the quota may have shrunk below a copy already kept (evicted at the next put).
      if (files.diskBytes > this.quotaBytes) throw new SpillWriteError(overQuotaMessage(files.diskBytes, this.quotaBytes));
      const existing = this.#entries.get(handle);
      if (existing && (await this.#filesComplete(existing))) {
        // Its record for a recovery after a crash first: a copy now masked must never be recovered as not masked.
        await rewriteOrigin(join(this.dir, handle), { ...existing, ...refreshOf(existing, planned) });
        Object.assign(existing, refreshOf(existing, planned));
        await this.#evictOverQuota(handle);
        this.#persistIndexLater();
        return { ...existing };
      }
      await writeEntryFolder(this.dir, handle, files, planned);
      written = true;
      this.#entries.set(handle, { ...planned });
      this.#unsynced.add(handle);
      await this.#evictOverQuota(handle);
      this.#persistIndexLater();
      return { ...planned };
    } catch (error) {
      if (error instanceof SpillWriteError) throw error;
      throw new SpillWriteError(`the spill folder could not be written: ${(error as Error).message}`, { cause: error });
    } finally {
      // Spooled texts belong to the store now: moved into place (or copied and deleted), or no longer needed.
      if (!written) await removeSpooled(spooled);
    }
  }

  /** The entry of a handle, or why there is none (invalid, unknown, expired), with a message for the model. */
  lookup(handle: unknown): SpillLookup {
    if (!isValidHandle(handle)) return { error: 'invalid', message: handleMessages.invalid(handle) };
    const entry = this.#known(handle);
    const lost = entry ? undefined : this.#puts.lost(handle);
    if (lost) return { error: 'unknown', message: lost };
    if (!entry) return { error: 'unknown', message: handleMessages.unknown(handle) };
    if (entry.expiresAt <= this.#now()) return { error: 'expired', message: handleMessages.expired(handle, entry.expiresAt) };
    return { entry: { ...entry } };
  }

  /** The text view of a live entry with its lines, from a small in-memory cache; marks it used. */
  async readDocument(handle: string): Promise<SpillDocument> {
    const entry = await this.#live(handle);
    this.#touch(entry);
    const cached = this.#documents.get(handle);
    if (cached) return cached;
    const text = await readFile(join(this.dir, handle, TEXT_FILE), 'utf8');
    const doc = new SpillDocument(text);
    this.#documents.set(handle, doc);
    return doc;
  }

  /**
   * The exact token count of a live entry's text view, made by the tokenizer thread reading the file
   * itself (this thread never holds the text); an estimate above the counter's size limit.
   */
  async countText(handle: string): Promise<TokenCount> {
    await this.#live(handle);
    return this.#counter.countFileOffThread(join(this.dir, handle, TEXT_FILE));
  }

  /** The text view of a live entry read from disk, bypassing the cache (for one-off whole-text work). */
  async readText(handle: string): Promise<string> {
    return readFile(await this.textFile(handle), 'utf8');
  }

  /** The file of a live entry's text view, once a put of it under way is done (for a reader of its own); marks it used. */
  async textFile(handle: string): Promise<string> {
    this.#touch(await this.#live(handle));
    return join(this.dir, handle, TEXT_FILE);
  }

  /** The complete stored CallToolResult, binary data restored; marks it used. */
  async readResult(handle: string): Promise<CallToolResult> {
    const entry = await this.#live(handle);
    this.#touch(entry);
    return readStoredResult(join(this.dir, handle), entry.binary);
  }

  /** Bytes of one binary block's file. */
  async readBinary(handle: string, index: number): Promise<Buffer> {
    const entry = await this.#live(handle);
    const file = entry.binary.find((f) => f.index === index);
    if (!file) throw new Error(`spilled result "${handle}" has no binary block ${index}`);
    return readFile(join(this.dir, handle, file.file));
  }

  /** Records an exact (or better) token count once it is known, e.g. from the worker thread. */
  async setTokens(handle: string, count: TokenCount): Promise<void> {
    await this.#puts.settled(handle);
    const entry = this.#entries.get(handle);
    if (!entry) return;
    entry.tokens = count.tokens;
    entry.tokensEstimated = count.estimated;
    this.#persistIndexLater();
  }

  /** Live entries, newest first. */
  list(): SpillEntry[] {
    const now = this.#now();
    return [...this.#entries.values()]
      .filter((e) => e.expiresAt > now)
      .sort((a, b) => b.createdAt - a.createdAt)
      .map((e) => ({ ...e }));
  }

  /** The first `maxTokens` tokens of a spilled text, cut at a line boundary. */
  async preview(handle: string, maxTokens: number): Promise<{ entry: SpillEntry; text: string; truncated: boolean }> {
    const doc = await this.readDocument(handle);
    const text = await this.#counter.truncateToTokens(doc.text, maxTokens);
    return { entry: await this.#live(handle), text, truncated: text.length < doc.text.length };
  }

  async delete(handle: string): Promise<boolean> {
    await this.#puts.settled(handle);
    if (!isValidHandle(handle) || !this.#entries.has(handle)) return false;
    await this.#remove(handle);
    await this.#index.save();
    return true;
  }

  /** Deletes every entry, and result folders the index does not list (a damaged index's); returns how many results there were. */
  async clear(): Promise<number> {
    await this.#puts.allSettled();
    const handles = [...this.#entries.keys()];
    for (const handle of handles) await this.#remove(handle);
    // Listed now or being kept: a result kept while Clear was at work is not one it was asked to clear.
    const unlisted = await removeUnlisted(this.dir, (name) => this.#entries.has(name) || this.#puts.has(name));
    this.#unlisted = { folders: 0, bytes: 0 };
    await this.#index.save();
    return handles.length + unlisted;
  }

  /** Bytes the kept results may take, as the settings say now. */
  get quotaBytes(): number {
    return this.#quota();
  }

  /** How long a result is kept, as the settings say now. */
  get ttlMs(): number {
    return this.#ttl();
  }

  /** The live entries (not expired ones, on disk until the next cleanup) and the bytes on disk, a damaged index's folders included. */
  diskUsage(): { entries: number; bytes: number; quotaBytes: number; unlisted?: number; unlistedBytes?: number } {
    const live = this.list();
    const { folders, bytes } = this.#unlisted;
    const liveBytes = live.reduce((sum, e) => sum + e.diskBytes, 0);
    const left = folders > 0 || bytes > 0 ? { unlisted: folders, unlistedBytes: bytes } : {};
    return { entries: live.length, bytes: liveBytes + bytes, quotaBytes: this.quotaBytes, ...left };
  }

  /**
   * Drops expired entries (by the retention of now: a lowered one ends results kept before) and those whose
   * files vanished or are incomplete, lists again complete folders the index does not know and removes the
   * others, evicts least recently used entries over the quota. Run at open, periodically and when a limit is lowered.
   */
  async cleanup(): Promise<SpillCleanupReport> {
    const report: SpillCleanupReport = { expired: 0, missing: 0, orphans: 0, evicted: 0 };
    const now = this.#now();
    let shortened = 0;
    for (const entry of [...this.#entries.values()]) {
      if (this.#puts.has(entry.handle)) continue;
      const until = retainedUntil(entry, this.ttlMs);
      if (until < entry.expiresAt) [entry.expiresAt, shortened] = [until, shortened + 1];
      if (entry.expiresAt <= now) {
        await this.#remove(entry.handle);
        report.expired++;
      } else if (!(await this.#filesComplete(entry))) {
        await this.#remove(entry.handle);
        report.missing++;
      }
    }
    const known = (name: string) => this.#entries.has(name) || this.#puts.has(name);
    const strays = this.#indexComplete ? await sortStrayFolders(this.dir, known, now, this.ttlMs) : { recovered: [], removed: 0 };
    for (const entry of strays.recovered) {
      this.#entries.set(entry.handle, entry);
      this.#unsynced.add(entry.handle);
      this.#log(`spilled result ${entry.handle} was missing from the index (Spillway stopped first): listed again`);
    }
    report.orphans = strays.removed;
    report.evicted = await this.#evictOverQuota(null);
    if (report.expired + report.missing + report.evicted + strays.recovered.length + shortened > 0) await this.#index.save();
    return report;
  }

  /** Writes the index if a write is still held back, and waits for pending writes. */
  async close(): Promise<void> {
    await this.#puts.allSettled();
    await this.#index.settled();
  }

  /** A handle's entry as the last answer naming it said: a put under way refreshes its owner before its write is done. */
  #known(handle: string): SpillEntry | undefined {
    const kept = this.#entries.get(handle);
    const planned = this.#puts.planned(handle);
    if (kept && planned) return { ...kept, ...refreshOf(kept, planned) };
    return kept ?? planned;
  }

  /** The entry of a live handle, once a put of it under way is done; throws the lookup's message otherwise. */
  async #live(handle: string): Promise<SpillEntry> {
    await this.#puts.settled(handle);
    const found = this.lookup(handle);
    if ('error' in found) throw new Error(found.message);
    return this.#entries.get(handle)!;
  }

  #touch(entry: SpillEntry): void {
    entry.lastAccess = this.#now();
    this.#persistIndexLater();
  }

  /** Writes the index soon, without waiting for it (saves are coalesced; `close` writes what is held back). */
  #persistIndexLater(): void {
    this.#index.saveSoon((error) => this.#log('spill index could not be written', error));
  }

  #filesComplete(entry: SpillEntry): Promise<boolean> {
    return filesComplete(join(this.dir, entry.handle), entry.files, entry.diskBytes);
  }

  async #remove(handle: string): Promise<void> {
    this.#entries.delete(handle);
    this.#unsynced.delete(handle);
    this.#documents.delete(handle);
    await rm(join(this.dir, handle), { recursive: true, force: true });
  }

  async #evictOverQuota(keep: string | null): Promise<number> {
    const evict = overQuota([...this.#entries.values()], this.quotaBytes, this.#now(), (handle) => handle === keep || this.#puts.has(handle));
    for (const entry of evict) await this.#remove(entry.handle);
    return evict.length;
  }
}
