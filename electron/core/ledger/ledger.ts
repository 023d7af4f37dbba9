/**
 * The savings ledger: every tool call and every `tools/list` served is appended to JSON-lines files
 * (`ledger.jsonl`, then `ledger.1.jsonl`, ... by size) and summed into per-day aggregates, which `open()`
 * rebuilds from the files. Appends are batched and asynchronous; a torn last line from a crash is
 * skipped on reading and cut off before the next append, so it never corrupts what follows.
 * Day buckets are UTC dates unless `dayOffsetMinutes` is given (the hub gives the computer's time zone).
 */
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
import { listSegments, readJsonLines } from '../log/journal-files.js';
import { JsonlJournal } from '../log/jsonl-journal.js';
import { callEntry, type CallRecordInput } from './call-record.js';
import { SavingsAggregates } from './savings-aggregates.js';

/** File name stem of the ledger. */
export const LEDGER_NAME = 'ledger';

export interface LedgerOptions {
  /** Folder of the ledger files (created on first write). */
  dir: string;
  now?: () => number;
  /** Size at which the ledger moves on to its next file. Default 20 MiB. */
  maxFileBytes?: number;
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
  /** Records read back from disk. */
  records: number;
  /** Lines that were torn or not valid ledger records, and were ignored. */
  skipped: number;
  /** Files that could not be read (their records are not counted). */
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

  constructor(opts: LedgerOptions) {
    this.dir = opts.dir;
    this.now = opts.now ?? Date.now;
    this.onError = opts.onError ?? (() => {});
    this.aggregates = new SavingsAggregates(opts.dayOffsetMinutes ?? 0);
    this.journal = new JsonlJournal({
      dir: opts.dir,
      name: LEDGER_NAME,
      daily: false,
      maxFileBytes: opts.maxFileBytes,
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
    this.listeners.clear();
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
    // A file that cannot be read (another user's, after a run with sudo) is reported and left out: the
    // savings shown miss its records, but the hub starts and records on.
    const segments = await listSegments(this.dir, LEDGER_NAME, false).catch((err: unknown) => {
      this.onError(err);
      return [];
    });
    for (const seg of segments) {
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
    this.opened = true;
    const early = this.early;
    this.early = [];
    for (const entry of early) this.apply(entry);
    return result;
  }

  private nowIso(): string {
    return new Date(this.now()).toISOString();
  }

  readonly #nowIso = (): string => this.nowIso();
}
