/**
 * The savings ledger: every tool call and every `tools/list` served is appended to JSON-lines files
 * (`ledger.jsonl`, then `ledger.1.jsonl`, ... by size) and summed into per-day aggregates, which `open()`
 * rebuilds from the files. Appends are batched and asynchronous; a torn last line from a crash is
 * skipped on reading and cut off before the next append, so it never corrupts what follows.
 * Files older than the newest few are rolled up into per-day totals (ledger-rollup.ts) and deleted, so
 * the folder and the reading at each start stay small however many calls were made.
 * Day buckets are UTC dates unless `dayOffsetMinutes` is given (the hub gives the computer's time zone).
 */
import { mkdir, open as openFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import {
  LedgerEntrySchema,
  ListRecordSchema,
  SavingsQuerySchema,
  type LedgerEntry,
  type ListRecord,
  type SavingsQuery,
  type SavingsReport,
  type SavingsUpdate,
} from '../../../shared/ledger.js';
import { removeStaleTemps } from '../files/atomic-file.js';
import { listSegments, readJsonLines, segmentFileName, type JournalSegment } from '../log/journal-files.js';
import { JsonlJournal } from '../log/jsonl-journal.js';
import { callEntry, type CallRecordInput } from './call-record.js';
import { readRollup, ROLLUP_FILE, writeRollup } from './ledger-rollup.js';
import { SavingsAggregates } from './savings-aggregates.js';

/** File name stem of the ledger. */
export const LEDGER_NAME = 'ledger';
/** Size at which the ledger moves on to its next file: about 9,000 calls. */
export const LEDGER_FILE_BYTES = 2 * 1024 * 1024;
/** Ledger files kept line by line, the one being written included; older ones are rolled up. */
export const LEDGER_KEEP_FILES = 2;
/** Records between two looks for files to roll up while the hub runs: fewer than one file holds. */
const ROLL_UP_EVERY = 5_000;

export interface LedgerOptions {
  /** Folder of the ledger files (created on first write). */
  dir: string;
  now?: () => number;
  /** Size at which the ledger moves on to its next file. Default LEDGER_FILE_BYTES. */
  maxFileBytes?: number;
  /** Files kept line by line (at least 1, the one being written); older ones are rolled up. Default LEDGER_KEEP_FILES. */
  keepFiles?: number;
  /** Records between two rollups while the ledger is open (there is one at open too). Default 5,000. */
  rollUpEvery?: number;
  /**
   * Offset from UTC, in minutes, used for day buckets: fixed, or the offset at each moment (see
   * `localOffsetMinutes`). Default 0: days are UTC dates.
   */
  dayOffsetMinutes?: number | ((ms: number) => number);
  /** Disk errors (a failed write drops its batch; the in-memory aggregates keep the records). */
  onError?: (err: unknown) => void;
}

/** A call to record; `time` defaults to the ledger's clock. */
export type { CallRecordInput };
/** A `tools/list` to record; `time` defaults to the ledger's clock. */
export type ListRecordInput = Omit<ListRecord, 'time'> & { time?: string };

export interface LedgerOpenResult {
  /** Records read back from disk, line by line. */
  records: number;
  /** Days read from the rollup file (set when there is one). */
  rolledDays?: number;
  /** Lines that were torn or not valid ledger records, and were ignored. */
  skipped: number;
  /** Files that could not be read, the rollup file included (their records are not counted). */
  unreadable?: string[];
}

/** The computer's offset from UTC at a moment, in minutes (east positive), daylight saving included. */
export const localOffsetMinutes = (ms: number): number => -new Date(ms).getTimezoneOffset();

export type SavingsListener = (update: SavingsUpdate) => void;

export class Ledger {
  private readonly dir: string;
  private readonly now: () => number;
  private readonly onError: (err: unknown) => void;
  private readonly journal: JsonlJournal;
  private readonly aggregates: SavingsAggregates;
  private readonly listeners = new Set<SavingsListener>();
  private opening: Promise<LedgerOpenResult> | undefined;
  private opened = false;
  private closed = false;
  /** Records made before open() finished: applied after the files are read, so none is counted twice. */
  private early: LedgerEntry[] = [];
  readonly #dayOffset: number | ((ms: number) => number);
  readonly #keepFiles: number;
  readonly #rollUpEvery: number;
  /**
   * What the rollup file holds: its days, and the highest file index folded in (-1: none). Undefined
   * while it is not read, and when it (or a file to fold) could not be read: then nothing is rolled up.
   */
  #rolled: { through: number; days: SavingsAggregates } | undefined;
  /** The last rollup started (they run one at a time). */
  #rolling: Promise<void> = Promise.resolve();
  #sinceRollUp = 0;

  constructor(opts: LedgerOptions) {
    this.dir = opts.dir;
    this.now = opts.now ?? Date.now;
    this.onError = opts.onError ?? (() => {});
    this.#dayOffset = opts.dayOffsetMinutes ?? 0;
    this.#keepFiles = Math.max(1, opts.keepFiles ?? LEDGER_KEEP_FILES);
    this.#rollUpEvery = opts.rollUpEvery ?? ROLL_UP_EVERY;
    this.aggregates = new SavingsAggregates(this.#dayOffset);
    this.journal = new JsonlJournal({
      dir: opts.dir,
      name: LEDGER_NAME,
      daily: false,
      maxFileBytes: opts.maxFileBytes ?? LEDGER_FILE_BYTES,
      now: this.now,
      onError: this.onError,
    });
  }

  /** Rebuilds the aggregates from the files on disk. Calling it again returns the same result. */
  open(): Promise<LedgerOpenResult> {
    this.opening ??= this.load();
    return this.opening;
  }

  /** Records one tool call. Throws (a ZodError) when the record is malformed. */
  recordCall(input: CallRecordInput): LedgerEntry {
    return this.record(callEntry(input, this.#nowIso));
  }

  /** Records one `tools/list` served. Throws (a ZodError) when the record is malformed. */
  recordList(input: ListRecordInput): LedgerEntry {
    const rec = ListRecordSchema.parse({ ...input, time: input.time ?? this.nowIso() });
    return this.record({ kind: 'list', ...rec });
  }

  /** Totals for today, the last 7 days and all time, with breakdowns over the queried days. */
  report(query: SavingsQuery = {}): SavingsReport {
    const q = SavingsQuerySchema.parse(query);
    return this.aggregates.report(this.aggregates.dayOf(this.now()), q.days);
  }

  /** Calls `listener` after every record with the record and the new all-time totals. */
  subscribe(listener: SavingsListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Resolves once every record made so far is on disk. */
  async flush(): Promise<void> {
    if (this.opening) await this.opening;
    await this.journal.flush();
  }

  /** Writes what is pending and closes the file. Later records are dropped (reported to onError). */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.opening) await this.opening.catch(() => {});
    this.closed = true;
    await this.journal.close();
    await this.#rolling;
    this.listeners.clear();
  }

  /**
   * Folds the files older than the newest `keepFiles` into the rollup file, then deletes them (and any
   * a crash left after an earlier rollup). Runs at open and every `rollUpEvery` records, one at a time;
   * never rejects: a failure is reported to onError and leaves the files to be folded next time.
   */
  rollUp(): Promise<void> {
    const run = this.#rolling.then(() => this.#rollUp()).catch((err: unknown) => this.onError(err));
    this.#rolling = run;
    return run;
  }

  async #rollUp(): Promise<void> {
    const rolled = this.#rolled;
    if (!rolled) return;
    const segments = await listSegments(this.dir, LEDGER_NAME, false);
    const unrolled = segments.filter((s) => s.index > rolled.through);
    const fold = unrolled.slice(0, Math.max(0, unrolled.length - this.#keepFiles));
    const last = fold.at(-1);
    let through = rolled.through;
    if (last) {
      const days = new SavingsAggregates(this.#dayOffset);
      for (const day of rolled.days.dayTotals()) days.addDay(day);
      for (const seg of fold) await this.#fold(seg, days);
      // The rollup is on disk, whole, before any file it counts is deleted.
      await writeRollup(this.dir, { through: last.index, days: days.dayTotals() });
      this.#rolled = { through: last.index, days };
      through = last.index;
    }
    for (const seg of segments) {
      if (seg.index > through) continue;
      await unlink(seg.path).catch((err: unknown) => {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.onError(err);
      });
    }
  }

  async #fold(seg: JournalSegment, days: SavingsAggregates): Promise<void> {
    try {
      await readJsonLines(seg.path, (value) => {
        const parsed = LedgerEntrySchema.safeParse(value);
        if (parsed.success) days.add(parsed.data);
      });
    } catch (err) {
      // Folded without it, its records would be left out of the savings for good.
      this.#rolled = undefined;
      throw new Error(
        `Spillway cannot read the savings file ${seg.path} (${(err as Error).message ?? err}), so it stopped compacting the savings history. Make the file readable by your user, or delete it, and restart Spillway.`,
        { cause: err },
      );
    }
  }

  private record(entry: LedgerEntry): LedgerEntry {
    // A call finishing during shutdown must not fail because of its bookkeeping.
    if (this.closed) {
      this.onError(new Error(`ledger closed: ${entry.kind} record at ${entry.time} dropped`));
      return entry;
    }
    if (!this.opened) {
      this.early.push(entry);
      return entry;
    }
    this.apply(entry);
    return entry;
  }

  private apply(entry: LedgerEntry): void {
    this.aggregates.add(entry);
    this.journal.append(entry);
    if (++this.#sinceRollUp >= this.#rollUpEvery) {
      this.#sinceRollUp = 0;
      void this.rollUp();
    }
    if (this.listeners.size === 0) return;
    const update: SavingsUpdate = { type: 'savings', record: entry, allTime: this.aggregates.allTime() };
    for (const listener of this.listeners) {
      try {
        listener(update);
      } catch (err) {
        this.onError(err);
      }
    }
  }

  private async load(): Promise<LedgerOpenResult> {
    const result: LedgerOpenResult = { records: 0, skipped: 0 };
    await removeStaleTemps(join(this.dir, ROLLUP_FILE));
    const through = await this.#readRollup(result);
    // A file that cannot be read (another user's, after a run with sudo) is reported and left out: the
    // savings shown miss its records, but the hub starts and records on.
    const segments = await listSegments(this.dir, LEDGER_NAME, false).catch((err: unknown) => {
      this.onError(err);
      return [];
    });
    for (const seg of segments) {
      // Counted in the rollup: left by a crash before it was deleted (the next rollup deletes it).
      if (seg.index <= through) continue;
      try {
        const read = await readJsonLines(seg.path, (value) => {
          const parsed = LedgerEntrySchema.safeParse(value);
          if (!parsed.success) {
            result.skipped++;
            return;
          }
          this.aggregates.add(parsed.data);
          result.records++;
        });
        result.skipped += read.skipped;
      } catch (err) {
        result.unreadable = [...(result.unreadable ?? []), seg.path];
        this.onError(err);
      }
    }
    if (through >= 0 && !segments.some((s) => s.index > through)) await this.#startAfter(through);
    this.opened = true;
    const early = this.early;
    this.early = [];
    for (const entry of early) this.apply(entry);
    void this.rollUp();
    return result;
  }

  /** Adds the rollup file's days to the aggregates; returns the highest file index it counts (-1: none). */
  async #readRollup(result: LedgerOpenResult): Promise<number> {
    const path = join(this.dir, ROLLUP_FILE);
    try {
      const rollup = await readRollup(this.dir);
      const days = new SavingsAggregates(this.#dayOffset);
      for (const day of rollup?.days ?? []) {
        days.addDay(day);
        this.aggregates.addDay(day);
      }
      if (rollup) result.rolledDays = rollup.days.length;
      this.#rolled = { through: rollup?.through ?? -1, days };
      return this.#rolled.through;
    } catch (err) {
      result.unreadable = [...(result.unreadable ?? []), path];
      this.onError(
        new Error(
          `Spillway cannot read the savings history in ${path} (${(err as Error).message ?? err}): the savings shown leave it out, and the history is not compacted. Make the file readable by your user, or move it away to start the history afresh, and restart Spillway.`,
        ),
      );
      return -1;
    }
  }

  /**
   * Makes the empty file after `through` when every ledger file is counted in the rollup (the others were
   * deleted by hand): the journal writes to the newest file, and a new `ledger.jsonl` would be taken for
   * one the rollup counts.
   */
  async #startAfter(through: number): Promise<void> {
    try {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      await (await openFile(join(this.dir, segmentFileName(LEDGER_NAME, undefined, through + 1)), 'a', 0o600)).close();
    } catch (err) {
      this.onError(err);
    }
  }

  private nowIso(): string {
    return new Date(this.now()).toISOString();
  }

  readonly #nowIso = (): string => this.nowIso();
}
