/**
 * The live log: a bounded ring of hub events (initial `events.query` merged with the live stream),
 * filtered with the same `matchesFilter` the hub uses, and the call a user opened.
 * Pushes are batched per frame and the ring is `$state.raw`, so a burst of events is one update.
 */
import type { ApiFailure, Backend } from './api.js';
import { matchesFilter, type EventFilter, type HubEvent, type Level } from '../../../shared/events.js';
import { summarize } from './event-summary.js';
import { OlderEvents, type OlderQuery } from './older-events.svelte.js';

export interface ActivityFilter {
  server: string;
  tool: string;
  client: string;
  /** Minimum level; '' shows all, debug details included. */
  level: Level | '';
  text: string;
}

export type CallStarted = Extract<HubEvent, { type: 'call.started' }>;
export type CallFinished = Extract<HubEvent, { type: 'call.finished' }>;

/** What the details pane shows for a selected row. */
export interface ActivityDetail {
  event: HubEvent;
  started?: CallStarted;
  finished?: CallFinished;
}

export interface ActivityOptions {
  /** Events kept in memory; older ones stay queryable on disk through events.query. */
  capacity?: number;
  /** Events loaded when the view opens. */
  initial?: number;
  /** Runs a batch of pushed events; defaults to the next animation frame. */
  schedule?: (flush: () => void) => void;
}

/** What the log shows until the user filters: Info and up, debug details hidden (issue 14, item 7). */
export const EMPTY_FILTER: ActivityFilter = { server: '', tool: '', client: '', level: 'info', text: '' };

function nextFrame(flush: () => void): void {
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(() => flush());
  else setTimeout(flush, 16);
}

function toQuery(f: ActivityFilter): EventFilter {
  const q: EventFilter = {};
  if (f.server) q.server = f.server;
  if (f.tool) q.tool = f.tool;
  if (f.client) q.client = f.client;
  if (f.level) q.level = f.level;
  if (f.text.trim()) q.text = f.text.trim();
  return q;
}

function distinct(events: readonly HubEvent[], pick: (e: Record<string, unknown>) => unknown): string[] {
  const values = events.map((e) => pick(e as Record<string, unknown>)).filter((v): v is string => typeof v === 'string' && v !== '');
  return [...new Set(values)].sort((a, b) => a.localeCompare(b));
}

/** A finished call carries everything its start did: once a call ends, its start row goes. */
function oneRowPerCall(events: readonly HubEvent[], later: readonly HubEvent[] = []): HubEvent[] {
  const finished = new Set([...events, ...later].flatMap((e) => (e.type === 'call.finished' ? [e.callId] : [])));
  return events.filter((e) => !(e.type === 'call.started' && finished.has(e.callId)));
}

/**
 * A call's exact counts (`call.counted`, made after the answer) replace the estimate its `call.finished`
 * carried, so its row and details show the figures Savings adds up. `fresh`: the events just added.
 */
export function applyCounts(events: HubEvent[], fresh: readonly HubEvent[]): HubEvent[] {
  // A plain record: this runs outside any reactive state (the result is assigned to the raw ring).
  const counts: Record<string, Extract<HubEvent, { type: 'call.counted' }>> = {};
  let any = false;
  for (const e of fresh) {
    if (e.type !== 'call.counted') continue;
    counts[e.callId] = e;
    any = true;
  }
  if (!any) return events;
  return events.map((e) => {
    const c = e.type === 'call.finished' && Object.hasOwn(counts, e.callId) ? counts[e.callId] : undefined;
    if (!c || e.type !== 'call.finished') return e;
    return { ...e, tokensUpstream: c.tokensUpstream, tokensDelivered: c.tokensDelivered, tokensEstimated: c.tokensEstimated };
  });
}

/** The arguments of each call started in `events`, by call id: its finished row is searched by them too. */
function argumentsByCall(events: readonly HubEvent[]): Record<string, string> {
  // A plain record: it is built anew from the raw ring, never changed in place.
  const found: Record<string, string> = {};
  for (const e of events) if (e.type === 'call.started' && e.argumentsPreview) found[e.callId] = e.argumentsPreview.toLowerCase();
  return found;
}

/**
 * The text search (`needle` in lower case): the event as the hub stores it, as its row reads ("passed",
 * "spilled"), and for a finished call the arguments its folded start carried.
 */
function matchesText(e: HubEvent, needle: string, args: Readonly<Record<string, string>>): boolean {
  if (matchesFilter(e, { text: needle })) return true;
  if (summarize(e).toLowerCase().includes(needle)) return true;
  return e.type === 'call.finished' && Object.hasOwn(args, e.callId) && args[e.callId].includes(needle);
}

/** The loaded history plus the live events that arrived while it loaded, each once, in order. */
function mergeHistory(history: readonly HubEvent[], early: readonly HubEvent[]): HubEvent[] {
  const seen = new Set(history.map((e) => e.seq));
  return [...history, ...early.filter((e) => !seen.has(e.seq))].sort((a, b) => a.seq - b.seq);
}

export class ActivityLog {
  #events = $state.raw<HubEvent[]>([]);
  #loading = $state(false);
  #error = $state<ApiFailure | undefined>();
  #selectedSeq = $state<number | undefined>();
  /** Earlier events exist than the ring holds: the history filled its limit, or the ring dropped some. */
  #truncated = $state(false);
  /** Bound to the filter controls. */
  filter = $state<ActivityFilter>({ ...EMPTY_FILTER });

  #pending: HubEvent[] = [];
  #flushScheduled = false;
  readonly #backend: Backend;
  readonly #capacity: number;
  readonly #initial: number;
  readonly #schedule: (flush: () => void) => void;

  /** Older events matching the filters, found in the hub's event files (`loadOlder`). */
  readonly #older: OlderEvents;
  #olderQuery = $derived.by((): OlderQuery => toQuery(this.filter));
  #olderFound = $derived.by(() => this.#older.eventsFor(this.#olderQuery));
  /** A call started before the window and finished in it is one row too: the held finished one. */
  #olderRows = $derived.by(() => oneRowPerCall(this.#olderFound, this.#events));

  /** Every kept event as a row: a finished call's start folded into it. */
  #rows = $derived.by(() => oneRowPerCall(this.#events));
  /** Arguments of the calls started, held or found older: a held finished call is searched by them too. */
  #arguments = $derived.by(() => argumentsByCall([...this.#olderFound, ...this.#events]));
  #visible = $derived.by(() => {
    const { text, ...query } = toQuery(this.filter);
    const needle = text?.toLowerCase();
    const args = this.#arguments;
    const held = this.#rows.filter((e) => matchesFilter(e, query) && (!needle || matchesText(e, needle, args)));
    // The older ones were searched with these filters by the hub: each is shown once, before the held ones.
    const first = held[0]?.seq ?? Number.POSITIVE_INFINITY;
    const older = this.#olderRows.filter((e) => e.seq < first);
    return older.length > 0 ? [...older, ...held] : held;
  });
  #servers = $derived.by(() => distinct(this.#events, (e) => e.server));
  #tools = $derived.by(() => distinct(this.#events, (e) => e.exposedName));
  #clients = $derived.by(() => distinct(this.#events, (e) => e.client));
  #detail = $derived.by((): ActivityDetail | undefined => {
    const seq = this.#selectedSeq;
    if (seq === undefined) return undefined;
    const older = this.#olderFound;
    const pool = older.length > 0 ? [...older.filter((e) => e.seq < (this.#events[0]?.seq ?? Infinity)), ...this.#events] : this.#events;
    const event = pool.find((e) => e.seq === seq);
    if (!event) return undefined;
    if (event.type !== 'call.started' && event.type !== 'call.finished') return { event };
    const id = event.callId;
    let started: CallStarted | undefined;
    let finished: CallFinished | undefined;
    for (const e of pool) {
      if (e.type === 'call.started' && e.callId === id) started = e;
      else if (e.type === 'call.finished' && e.callId === id) finished = e;
    }
    return { event, started, finished };
  });

  constructor(backend: Backend, options: ActivityOptions = {}) {
    this.#backend = backend;
    this.#capacity = options.capacity ?? 5000;
    this.#initial = Math.min(options.initial ?? 1000, this.#capacity);
    this.#schedule = options.schedule ?? nextFrame;
    this.#older = new OlderEvents(backend);
  }

  /** Every kept event, oldest first. */
  get events(): readonly HubEvent[] {
    return this.#events;
  }
  /** The rows the log shows, oldest first. */
  get visible(): readonly HubEvent[] {
    return this.#visible;
  }
  /** The rows the log would show without filters (what `visible` is counted against). */
  get rowCount(): number {
    return this.#rows.length;
  }
  /** Whether earlier events than these exist (the log shows only the latest). */
  get truncated(): boolean {
    return this.#truncated;
  }
  get loading(): boolean {
    return this.#loading;
  }
  get error(): ApiFailure | undefined {
    return this.#error;
  }
  get servers(): string[] {
    return this.#servers;
  }
  get tools(): string[] {
    return this.#tools;
  }
  get clients(): string[] {
    return this.#clients;
  }
  get detail(): ActivityDetail | undefined {
    return this.#detail;
  }
  get selectedSeq(): number | undefined {
    return this.#selectedSeq;
  }
  get filtered(): boolean {
    const f = this.filter;
    return Boolean(f.server || f.tool || f.client || f.level !== EMPTY_FILTER.level || f.text.trim());
  }

  /** Whether older events than the window holds may match the filters, to be searched for on the hub's disk. */
  get canLoadOlder(): boolean {
    return this.#truncated && !this.#older.doneFor(this.#olderQuery, this.#events[0]?.seq);
  }
  /** A search of the older events for these filters is under way. */
  get loadingOlder(): boolean {
    return this.#older.searchingFor(this.#olderQuery);
  }
  /** The older events found for these filters (rows shown before the held ones). */
  get olderFound(): number {
    return this.#olderRows.length;
  }
  /** The older events were searched to the start of the hub's files for these filters. */
  get olderDone(): boolean {
    return this.#older.doneFor(this.#olderQuery, this.#events[0]?.seq);
  }
  /** The search of the older events: how far it has come, what it has read, its failure. */
  get older(): Pick<OlderEvents, 'progress' | 'bytesSearched' | 'bytesTotal' | 'error'> {
    return this.#older;
  }

  /** Searches the hub's event files for older events matching the filters, one page of matches per call. */
  loadOlder(): Promise<void> {
    const query = this.#olderQuery;
    return this.#older.load(query, this.#events[0]?.seq, () => this.#olderQuery);
  }

  /** Stops the search of older events (what it found stays shown). */
  stopOlder(): void {
    this.#older.stop();
  }

  select(seq: number | undefined): void {
    this.#selectedSeq = seq;
  }

  clearFilter(): void {
    this.filter = { ...EMPTY_FILTER };
  }

  /**
   * Subscribes first and then loads the recent history, so nothing falls between the two; returns the stop.
   */
  start(): () => void {
    let loaded = false;
    const early: HubEvent[] = [];
    const stop = this.#backend.subscribe((e) => {
      if (loaded) this.push(e);
      else early.push(e);
    });
    this.#loading = true;
    void this.#backend.call('events.query', { limit: this.#initial }).then((result) => {
      this.#loading = false;
      const history = result.ok ? result.value : [];
      this.#error = result.ok ? undefined : result;
      const merged = mergeHistory(history, early);
      const all = applyCounts([...this.#events, ...merged], merged);
      this.#events = all.slice(-this.#capacity);
      if (history.length >= this.#initial || all.length > this.#capacity) this.#truncated = true;
      loaded = true;
    });
    return stop;
  }

  /** Adds a live event; rendering happens once per batch. */
  push(event: HubEvent): void {
    this.#pending.push(event);
    // While the window is hidden frames do not run; keep the backlog bounded too.
    if (this.#pending.length > this.#capacity * 2) this.#pending.splice(0, this.#pending.length - this.#capacity);
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    this.#schedule(() => this.flush());
  }

  /** Applies pending events now. */
  flush(): void {
    this.#flushScheduled = false;
    if (this.#pending.length === 0) return;
    const batch = this.#pending;
    this.#pending = [];
    const next = applyCounts(this.#events.concat(batch), batch);
    if (next.length <= this.#capacity) {
      this.#events = next;
      return;
    }
    this.#events = next.slice(next.length - this.#capacity);
    this.#truncated = true;
  }
}
