/**
 * One ordered, batched, asynchronous appender of JSON lines, used by the event log and the ledger.
 * `append` never waits for the disk: lines queue up and a single writer drains them in batches on the
 * next turn of the event loop, so the per-call path of the hub never blocks on I/O (DESIGN.md).
 */
import { mkdir, open, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { assertJournalName, dayOf, listSegments, segmentFileName, type JournalSegment } from './journal-files.js';

/** Default size at which a journal moves on to its next file. */
export const DEFAULT_MAX_FILE_BYTES = 20 * 1024 * 1024;
/** How long appended lines wait to be written together (see #schedule). */
const BATCH_DELAY_MS = 50;

export interface JsonlJournalOptions {
  dir: string;
  /** File name stem: `events` gives `events-YYYY-MM-DD.jsonl`, `ledger` gives `ledger.jsonl`. */
  name: string;
  /** One file (series) per UTC day, by the time the line is written. */
  daily: boolean;
  maxFileBytes?: number;
  /**
   * Size of all the journal's files together past which the oldest are deleted (checked whenever a file
   * is opened). Default: no cap (the ledger keeps everything; the event log sets one).
   */
  maxTotalBytes?: number;
  /**
   * Lines waiting for the disk past which new ones are dropped (counted, see onDropped) instead of
   * queued: when lines come faster than the disk takes them, memory must not grow. Default: no limit.
   */
  maxQueued?: number;
  /** Lines were dropped since the last call, because the queue was full. */
  onDropped?: (count: number) => void;
  now?: () => number;
  /** Write failures (disk full, folder removed): the batch is dropped and the next batch retries. */
  onError?: (err: unknown) => void;
}

interface ActiveSegment {
  handle: FileHandle;
  path: string;
  day: string | undefined;
  index: number;
  size: number;
}

export class JsonlJournal {
  readonly dir: string;
  readonly name: string;
  readonly daily: boolean;
  readonly maxFileBytes: number;
  readonly maxTotalBytes: number;
  readonly maxQueued: number;
  private readonly onDropped: (count: number) => void;
  private dropped = 0;
  private readonly now: () => number;
  private readonly onError: (err: unknown) => void;
  private queue: unknown[] = [];
  private scheduled: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private active: ActiveSegment | undefined;
  private dirReady = false;
  private closed = false;

  constructor(opts: JsonlJournalOptions) {
    assertJournalName(opts.name);
    this.dir = opts.dir;
    this.name = opts.name;
    this.daily = opts.daily;
    this.maxFileBytes = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.maxTotalBytes = opts.maxTotalBytes ?? Number.POSITIVE_INFINITY;
    this.maxQueued = opts.maxQueued ?? Number.POSITIVE_INFINITY;
    this.onDropped = opts.onDropped ?? (() => {});
    this.now = opts.now ?? Date.now;
    this.onError = opts.onError ?? (() => {});
  }

  /**
   * Queues one value as a JSON line. Returns at once; the value is serialized with its batch, off the
   * request path, so it must not be changed after this call (callers hand over fresh objects).
   */
  append(value: unknown): void {
    if (this.closed) throw new Error(`journal ${this.name} is closed`);
    if (this.queue.length >= this.maxQueued) {
      this.dropped++;
      return;
    }
    this.queue.push(value);
    if (!this.running && !this.scheduled) this.scheduled = this.#schedule();
  }

  /** Lines waiting to be written. */
  get queued(): number {
    return this.queue.length;
  }

  /** Resolves once every line appended before the call is on disk (or its write failed). */
  flush(): Promise<void> {
    if (this.scheduled) {
      clearTimeout(this.scheduled);
      this.scheduled = undefined;
    }
    if (!this.running && this.queue.length > 0) this.kick();
    return this.running ?? Promise.resolve();
  }

  /** Writes what is queued, closes the open file; further appends throw. */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    const active = this.active;
    this.active = undefined;
    await active?.handle.close().catch(() => {});
  }

  /** The journal's files, oldest first. */
  segments(): Promise<JournalSegment[]> {
    return listSegments(this.dir, this.name, this.daily);
  }

  /** Deletes daily files whose day is before `cutoffDay` (`YYYY-MM-DD`); returns the deleted paths. */
  async deleteDaysBefore(cutoffDay: string): Promise<string[]> {
    const deleted: string[] = [];
    for (const seg of await this.segments()) {
      if (seg.day === undefined || seg.day >= cutoffDay || seg.path === this.active?.path) continue;
      try {
        await unlink(seg.path);
        deleted.push(seg.path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.onError(err);
      }
    }
    return deleted;
  }

  /**
   * Lines are gathered for a short while and written in one go: one write per call (two events and a
   * ledger line each) cost more main-thread time than the whole relay. A crash loses at most this window.
   */
  #schedule(): NodeJS.Timeout {
    const timer = setTimeout(() => this.kick(), BATCH_DELAY_MS);
    timer.unref();
    return timer;
  }

  private kick(): void {
    this.scheduled = undefined;
    if (this.running) return;
    this.running = this.drain().finally(() => {
      this.running = undefined;
      // Lines appended while the last batch was being finished.
      if (this.queue.length > 0 && !this.scheduled) this.scheduled = this.#schedule();
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      try {
        await this.writeBatch(batch);
      } catch (err) {
        this.onError(err);
        // Reopen next time: the folder may have been removed or the file replaced.
        const active = this.active;
        this.active = undefined;
        await active?.handle.close().catch(() => {});
      }
      this.reportDropped();
    }
  }

  /** Told after a batch is written, so the caller's note about it finds room in the queue. */
  private reportDropped(): void {
    if (this.dropped === 0) return;
    const count = this.dropped;
    this.dropped = 0;
    try {
      this.onDropped(count);
    } catch (err) {
      this.onError(err);
    }
  }

  private async writeBatch(values: unknown[]): Promise<void> {
    const day = this.daily ? dayOf(this.now()) : undefined;
    let seg = await this.segmentFor(day);
    // Lines are joined once per write rather than appended one by one (fewer intermediate strings).
    let lines: string[] = [];
    let chunkBytes = 0;
    for (const value of values) {
      let line: string;
      try {
        line = `${JSON.stringify(value)}`;
      } catch (err) {
        // One value that cannot be serialized is reported alone; the rest of its batch is written.
        this.onError(err);
        continue;
      }
      const bytes = Buffer.byteLength(line) + 1;
      const used = seg.size + chunkBytes;
      if (used > 0 && used + bytes > this.maxFileBytes) {
        if (lines.length > 0) await this.write(seg, lines, chunkBytes);
        lines = [];
        chunkBytes = 0;
        seg = await this.rotate(seg);
      }
      lines.push(line);
      chunkBytes += bytes;
    }
    if (lines.length > 0) await this.write(seg, lines, chunkBytes);
  }

  private async write(seg: ActiveSegment, lines: string[], bytes: number): Promise<void> {
    lines.push('');
    await seg.handle.appendFile(lines.join('\n'), 'utf8');
    seg.size += bytes;
  }

  private async segmentFor(day: string | undefined): Promise<ActiveSegment> {
    if (this.active && this.active.day === day) return this.active;
    if (this.active) {
      await this.active.handle.close().catch(() => {});
      this.active = undefined;
    }
    if (!this.dirReady) {
      // Owner-only: the event log holds tool arguments, the ledger counts per tool (app/hub-record.ts, ownerOnly).
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      this.dirReady = true;
    }
    const existing = (await this.segments()).filter((s) => s.day === day);
    const last = existing.at(-1);
    if (last) {
      const opened = await openForAppend(last.path);
      const seg: ActiveSegment = { ...opened, day, index: last.index };
      this.active = seg;
      await this.deleteOverCap();
      if (seg.size >= this.maxFileBytes) return this.rotate(seg);
      return seg;
    }
    return this.openNew(day, 0);
  }

  private async rotate(seg: ActiveSegment): Promise<ActiveSegment> {
    await seg.handle.close().catch(() => {});
    this.active = undefined;
    return this.openNew(seg.day, seg.index + 1);
  }

  private async openNew(day: string | undefined, index: number): Promise<ActiveSegment> {
    const path = join(this.dir, segmentFileName(this.name, day, index));
    const opened = await openForAppend(path);
    const seg: ActiveSegment = { ...opened, day, index };
    this.active = seg;
    await this.deleteOverCap();
    return seg;
  }

  /**
   * Deletes the oldest files while all of them together are over maxTotalBytes; never the open one,
   * which counts at its full size: it grows until the next file opens, and the cap holds meanwhile too.
   */
  private async deleteOverCap(): Promise<void> {
    if (!Number.isFinite(this.maxTotalBytes)) return;
    const active = this.active?.path;
    const sized: { path: string; size: number }[] = [];
    for (const seg of await this.segments()) {
      const size = await stat(seg.path).then(
        (s) => s.size,
        () => 0,
      );
      sized.push({ path: seg.path, size: seg.path === active ? Math.max(size, this.maxFileBytes) : size });
    }
    let total = sized.reduce((sum, s) => sum + s.size, 0);
    for (const { path, size } of sized) {
      if (total <= this.maxTotalBytes) return;
      if (path === active) continue;
      try {
        await unlink(path);
        total -= size;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.onError(err);
      }
    }
  }
}

const TAIL_CHUNK = 64 * 1024;

/**
 * Opens a file for appending (made owner-only when new). If the previous run crashed mid-write, the file
 * ends in a torn line: it is cut back to the last complete line first, so the next line is not glued onto
 * the fragment.
 */
async function openForAppend(path: string): Promise<{ handle: FileHandle; path: string; size: number }> {
  const handle = await open(path, 'a+', 0o600);
  try {
    let size = (await handle.stat()).size;
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) {
        size = await lastNewlineEnd(handle, size);
        await handle.truncate(size);
      }
    }
    return { handle, path, size };
  } catch (err) {
    await handle.close().catch(() => {});
    throw err;
  }
}

/** Offset just past the last newline before `end` (0 when there is none). */
async function lastNewlineEnd(handle: FileHandle, end: number): Promise<number> {
  const buf = Buffer.alloc(TAIL_CHUNK);
  while (end > 0) {
    const start = Math.max(0, end - TAIL_CHUNK);
    const len = end - start;
    await handle.read(buf, 0, len, start);
    const at = buf.subarray(0, len).lastIndexOf(0x0a);
    if (at !== -1) return start + at + 1;
    end = start;
  }
  return 0;
}
