/**
 * The hub's event log: stamps each event with a sequence number and time, keeps the newest in a bounded
 * ring for the live view, tells subscribers at once, and appends to daily JSON-lines files in the data
 * folder in the background, so history survives a restart and can be queried with the same filter.
 */
import { EventFilterSchema, HubEventSchema, matchesFilter, type EventFilter, type HubEvent, type HubEventInput } from '../../../shared/events.js';
import { dayOf, daysBefore, lastJsonValueSync, listSegmentsSync, readJsonLines } from './journal-files.js';
import { JsonlJournal } from './jsonl-journal.js';
import { searchEvents } from './event-search.js';
import type { EventSearchRequest, EventSearchResult } from '../../../shared/api-events.js';
import { Ring } from './event-ring.js';
import { copyRedacted, redactSecrets } from './redact.js';
import { SecretValues } from './secret-values.js';
import { formatCount } from '../../../shared/plain-text.js';

/** File name stem of the event log: `events-YYYY-MM-DD[.N].jsonl` (UTC days). */
export const EVENT_LOG_NAME = 'events';
export const DEFAULT_RING_SIZE = 5000;
/** All event files together; past it the oldest go, whatever the retention (a flood must not fill the disk). */
export const DEFAULT_MAX_LOG_BYTES = 200 * 1024 * 1024;
/** Events waiting for the disk past which new ones are kept in memory only (counted and reported). */
export const DEFAULT_MAX_QUEUED_EVENTS = 10_000;
const DAY_MS = 24 * 3600_000;
/**
 * Event fields that hold ids and enums: they are not masked by value (a server id equal to some
 * configured value must still match a filter), only the secret-shaped text pass applies.
 */
const PLAIN_EVENT_KEYS: ReadonlySet<string> = new Set([
  'type',
  'level',
  'status',
  'action',
  'transport',
  'server',
  'tool',
  'exposedName',
  'callId',
  'session',
  'client',
  'handle',
]);

export interface EventLogOptions {
  /** Folder of the event files (created on first write). */
  dir: string;
  /** Files of days before today minus this many days are deleted at open, once a day and when it changes. */
  retentionDays: number;
  /** Events kept in memory. Default 5000. */
  ringSize?: number;
  now?: () => number;
  /** Size at which a day's file moves on to `.1`, `.2`, ... Default 20 MiB. */
  maxFileBytes?: number;
  /** Size of all event files together past which the oldest are deleted. Default 200 MiB. */
  maxTotalBytes?: number;
  /** Events waiting to be written past which new ones skip the disk. Default 10000. */
  maxQueued?: number;
  /** Parse every emitted event with HubEventSchema and throw on a malformed one (development, tests). */
  validate?: boolean;
  /** Disk errors (a failed write drops its batch; the ring and subscribers are unaffected). */
  onError?: (err: unknown) => void;
  /** The secret values masked in every event (default: none known until tracked on `secrets`). */
  secrets?: SecretValues;
}

export type EventListener = (event: HubEvent) => void;

function isStoredEvent(value: unknown): value is HubEvent {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.seq === 'number' && typeof v.type === 'string' && typeof v.time === 'string' && typeof v.level === 'string';
}

export class EventLog {
  /** The known secret values, masked wherever they appear in an event (issue 13, item 12). */
  readonly secrets: SecretValues;
  private readonly ring: Ring<HubEvent>;
  private readonly journal: JsonlJournal;
  private readonly listeners = new Set<EventListener>();
  private readonly now: () => number;
  private retentionDays: number;
  private readonly validate: boolean;
  private readonly onError: (err: unknown) => void;
  private seq: number;
  /** Whether events older than the ring's oldest may exist on disk. */
  private olderOnDisk: boolean;
  private lastPruneDay: string;
  /** Start (ms, UTC) of the day `lastPruneDay` was last checked in. */
  private lastPruneDayStart = Number.NEGATIVE_INFINITY;
  private maintenance: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(opts: EventLogOptions) {
    this.now = opts.now ?? Date.now;
    this.retentionDays = opts.retentionDays;
    this.validate = opts.validate ?? false;
    this.onError = opts.onError ?? (() => {});
    this.secrets = opts.secrets ?? new SecretValues();
    this.ring = new Ring<HubEvent>(opts.ringSize ?? DEFAULT_RING_SIZE);
    this.journal = new JsonlJournal({
      dir: opts.dir,
      name: EVENT_LOG_NAME,
      daily: true,
      maxFileBytes: opts.maxFileBytes,
      maxTotalBytes: opts.maxTotalBytes ?? DEFAULT_MAX_LOG_BYTES,
      maxQueued: opts.maxQueued ?? DEFAULT_MAX_QUEUED_EVENTS,
      onDropped: (count) => this.droppedFromDisk(count),
      now: this.now,
      onError: this.onError,
    });
    // seq continues from the newest event on disk: a bounded backwards read of the newest file(s),
    // done synchronously so that emit() can be called as soon as the log exists.
    this.seq = lastSeqOnDisk(opts.dir, this.onError);
    this.olderOnDisk = this.seq > 0;
    this.lastPruneDay = dayOf(this.now());
    this.maintenance = this.pruneExpired();
  }

  /** The seq of the newest event (0 before the first one ever). */
  get lastSeq(): number {
    return this.seq;
  }

  /**
   * Stamps, redacts, keeps and publishes one event; returns it as stored. Never waits for the disk.
   * Throws only when `validate` is on and the event does not match HubEventSchema.
   */
  emit(input: HubEventInput): HubEvent {
    const now = this.now();
    // The log's own seq and time need no masking; a given time is masked like any other field.
    const values = this.secrets.snapshot();
    const stamped: Record<string, unknown> = {
      seq: this.seq + 1,
      time: input.time === undefined ? new Date(now).toISOString() : redactSecrets(input.time, values),
    };
    copyRedacted(stamped, input, 'time', values, PLAIN_EVENT_KEYS);
    const event = stamped as unknown as HubEvent;
    if (this.validate) HubEventSchema.parse(event);
    this.seq = event.seq;
    if (this.ring.push(event)) this.olderOnDisk = true;
    if (!this.closed) {
      this.journal.append(event);
      this.pruneIfNewDay(now);
    }
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        this.onError(err);
      }
    }
    return event;
  }

  /** The events held in memory (at most ringSize), oldest first. */
  recent(): HubEvent[] {
    return this.ring.toArray();
  }

  /** Calls `listener` synchronously for every event emitted from now on; returns the unsubscribe. */
  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /**
   * The last `limit` events matching the filter, in ascending seq order. Answered from memory when the
   * ring holds every event that could match; otherwise the files on disk are read too, newest first,
   * stopping once enough older matches are found.
   */
  async query(filter: EventFilter): Promise<HubEvent[]> {
    const f = EventFilterSchema.parse(filter);
    const limit = f.limit;
    const oldest = this.ring.oldest();
    const fromRing: HubEvent[] = [];
    for (const event of this.ring.newestFirst()) {
      if (!matchesFilter(event, f)) continue;
      fromRing.push(event);
      if (fromRing.length >= limit) break;
    }
    fromRing.reverse();
    if (fromRing.length >= limit || this.ringCovers(f, oldest)) return fromRing;
    // Everything older than the ring's oldest event is on disk once pending writes are done.
    const boundary = oldest ? oldest.seq : this.seq + 1;
    await this.journal.flush();
    try {
      const fromDisk = await this.readDisk(f, boundary, limit - fromRing.length);
      return [...fromDisk, ...fromRing];
    } catch (err) {
      this.onError(err);
      return fromRing;
    }
  }

  /**
   * Matching events older than the window holds (`beforeSeq`), searched backwards through the event files
   * a bounded part per call (event-search.ts); the answer says where the next call continues.
   */
  async search(request: EventSearchRequest): Promise<EventSearchResult> {
    await this.journal.flush();
    const segments = await this.journal.segments();
    return searchEvents(request, { segments, name: EVENT_LOG_NAME, daily: true, isEvent: isStoredEvent });
  }

  /** Deletes event files of days older than the retention; returns the deleted paths. */
  async pruneExpired(): Promise<string[]> {
    const cutoff = daysBefore(dayOf(this.now()), Math.max(0, this.retentionDays));
    try {
      return await this.journal.deleteDaysBefore(cutoff);
    } catch (err) {
      this.onError(err);
      return [];
    }
  }

  /**
   * Keeps the event files of `days` days from now on (a retention changed in Settings); the files older
   * than that are deleted at once, by the returned promise.
   */
  setRetentionDays(days: number): Promise<string[]> {
    this.retentionDays = days;
    const pruned = this.maintenance.then(() => this.pruneExpired());
    this.maintenance = pruned;
    return pruned;
  }

  /** Events waiting to be written to disk. */
  get queued(): number {
    return this.journal.queued;
  }

  /** Resolves when every event emitted so far is on disk and retention clean-up has finished. */
  async flush(): Promise<void> {
    await this.maintenance;
    await this.journal.flush();
  }

  /** Writes what is pending and closes the file; later emits still reach the ring and subscribers. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.maintenance;
    await this.journal.close();
    this.listeners.clear();
  }

  /** Some events came faster than the disk took them: the file says so where they are missing. */
  private droppedFromDisk(count: number): void {
    const events = count === 1 ? '1 event was' : `${formatCount(count)} events were`;
    this.emit({
      type: 'log',
      level: 'warn',
      message: `${events} not saved to the log files: they came faster than the disk could take them. Recent events are still shown here.`,
    });
  }

  private ringCovers(f: ReturnType<typeof EventFilterSchema.parse>, oldest: HubEvent | undefined): boolean {
    if (!this.olderOnDisk) return true;
    if (!oldest) return false;
    if (f.afterSeq !== undefined && f.afterSeq >= oldest.seq - 1) return true;
    // Events before the ring's oldest were stamped no later than it.
    if (f.since !== undefined && oldest.time < f.since) return true;
    return false;
  }

  private async readDisk(f: ReturnType<typeof EventFilterSchema.parse>, boundary: number, need: number): Promise<HubEvent[]> {
    const segments = await this.journal.segments();
    const sinceMs = f.since !== undefined ? Date.parse(f.since) : NaN;
    const sinceDay = Number.isNaN(sinceMs) ? undefined : dayOf(sinceMs);
    const perFile: HubEvent[][] = [];
    let found = 0;
    for (let i = segments.length - 1; i >= 0 && found < need; i--) {
      const seg = segments[i];
      // A day's file holds events written that day; earlier days cannot reach `since`.
      if (sinceDay !== undefined && seg.day !== undefined && seg.day < sinceDay) break;
      let matches: HubEvent[] = [];
      let first: HubEvent | undefined;
      await readJsonLines(seg.path, (value) => {
        if (!isStoredEvent(value)) return;
        first ??= value;
        if (value.seq >= boundary || !matchesFilter(value, f)) return;
        matches.push(value);
        if (matches.length > need * 2) matches = matches.slice(-need);
      });
      if (matches.length > need) matches = matches.slice(-need);
      perFile.unshift(matches);
      found += matches.length;
      if (first !== undefined && f.afterSeq !== undefined && first.seq <= f.afterSeq) break;
    }
    const all = perFile.flat().sort((a, b) => a.seq - b.seq);
    return all.slice(-need);
  }

  private pruneIfNewDay(now: number): void {
    // The day string is made only once the clock has passed the day's end (once per day, not per event).
    if (now >= this.lastPruneDayStart && now < this.lastPruneDayStart + DAY_MS) return;
    const today = dayOf(now);
    this.lastPruneDayStart = Date.parse(`${today}T00:00:00.000Z`);
    if (today === this.lastPruneDay) return;
    this.lastPruneDay = today;
    this.maintenance = this.maintenance.then(() => this.pruneExpired());
  }
}

/** The highest seq stored in the newest event file that has one; 0 when there is none. */
function lastSeqOnDisk(dir: string, onError: (err: unknown) => void): number {
  try {
    const segments = listSegmentsSync(dir, EVENT_LOG_NAME, true);
    for (let i = segments.length - 1; i >= 0; i--) {
      const last = lastJsonValueSync(segments[i].path, isStoredEvent) as HubEvent | undefined;
      if (last) return last.seq;
    }
  } catch (err) {
    // An unreadable folder must not stop the hub: the log then works in memory and reports why.
    onError(err);
  }
  return 0;
}
