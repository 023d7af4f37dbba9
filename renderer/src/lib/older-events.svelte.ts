/**
 * Older events for the Activity filters: the window holds only the latest events, so "Load older events"
 * asks the hub to search its event files (`events.search`) for events matching the filters that are older
 * than the oldest one held. Each request reads a bounded part of the files; a click keeps asking until a
 * page of matches is found or the files are searched to their start, showing how far it has come.
 */
import type { ApiFailure, ApiResult, Backend } from './api.js';
import type { EventFilter, HubEvent } from '../../../shared/events.js';
import type { EventSearchCursor, EventSearchResult } from '../../../shared/api-events.js';

/** Matches one click looks for before it stops. */
export const OLDER_PAGE = 200;

export type OlderQuery = Pick<EventFilter, 'server' | 'tool' | 'client' | 'level' | 'text'>;

export class OlderEvents {
  /** The older matches found for `#key`'s filters, oldest first. */
  #events = $state.raw<HubEvent[]>([]);
  #searching = $state(false);
  /** Undefined before the first search; null once the files were searched to their start. */
  #next = $state<EventSearchCursor | null | undefined>();
  #bytesLeft = $state(0);
  #bytesTotal = $state(0);
  #error = $state<ApiFailure | undefined>();
  /** The filters the found events are for (JSON of the query). */
  #key = $state('');
  /**
   * The seq the search is below: the oldest event the window held when it started. The window moves on
   * as events arrive; the events it dropped since, between, are searched anew (`load`).
   */
  #before = $state<number | undefined>();
  /** Bumped to stop a search under way (a filter changed, or Stop). */
  #run = 0;
  readonly #backend: Backend;

  constructor(backend: Backend) {
    this.#backend = backend;
  }

  /** The matches found for `query` (none when they were found for other filters). */
  eventsFor(query: OlderQuery): HubEvent[] {
    return this.#key === JSON.stringify(query) ? this.#events : [];
  }
  /**
   * Whether the files were searched to their start for `query`, and no events fell out of the window since
   * (`oldestHeld`: the oldest event the window holds now).
   */
  doneFor(query: OlderQuery, oldestHeld?: number): boolean {
    return this.#key === JSON.stringify(query) && this.#next === null && !this.#movedOn(oldestHeld);
  }
  /** The window dropped events since the search started: they are neither held nor searched. */
  #movedOn(oldestHeld: number | undefined): boolean {
    return oldestHeld !== undefined && this.#before !== undefined && oldestHeld > this.#before;
  }
  /** Whether a search for `query` is under way. */
  searchingFor(query: OlderQuery): boolean {
    return this.#searching && this.#key === JSON.stringify(query);
  }
  get error(): ApiFailure | undefined {
    return this.#error;
  }
  /** How far the search has come, 0 to 1. */
  get progress(): number {
    return this.#bytesTotal > 0 ? (this.#bytesTotal - this.#bytesLeft) / this.#bytesTotal : 0;
  }
  get bytesSearched(): number {
    return this.#bytesTotal - this.#bytesLeft;
  }
  get bytesTotal(): number {
    return this.#bytesTotal;
  }

  /**
   * Searches on for `query`, below `oldestHeld` (the oldest event the window holds), until OLDER_PAGE more
   * matches are found, the files end, Stop is pressed or the filters change (`current`: the filters now).
   */
  async load(query: OlderQuery, oldestHeld: number | undefined, current: () => OlderQuery = () => query): Promise<void> {
    const key = JSON.stringify(query);
    if (key !== this.#key) {
      this.#key = key;
      this.#events = [];
      this.#next = undefined;
      this.#before = oldestHeld;
      this.#bytesLeft = 0;
      this.#bytesTotal = 0;
    } else if (this.#movedOn(oldestHeld)) {
      // Search again from the newest file below the window's oldest event now; what was found stays.
      this.#before = oldestHeld;
      this.#next = undefined;
    }
    if (this.#next === null) return;
    const run = ++this.#run;
    this.#searching = true;
    this.#error = undefined;
    let found = 0;
    try {
      while (run === this.#run && found < OLDER_PAGE && JSON.stringify(current()) === key) {
        const request = { ...query, limit: OLDER_PAGE - found, ...(this.#before !== undefined ? { beforeSeq: this.#before } : {}) };
        const result: ApiResult<EventSearchResult> = await this.#backend.call(
          'events.search',
          this.#next ? { ...request, cursor: this.#next } : request,
        );
        if (run !== this.#run) return;
        if (!result.ok) {
          this.#error = result;
          return;
        }
        const page: EventSearchResult = result.value;
        const events = merged(page.events, this.#events);
        // Only events not found before count: the hub can answer some again (a call's half in two parts).
        found += events.length - this.#events.length;
        if (events !== this.#events) this.#events = events;
        this.#next = page.next;
        this.#bytesLeft = page.bytesLeft;
        this.#bytesTotal = page.bytesTotal;
        if (page.next === null) return;
      }
    } finally {
      if (run === this.#run) this.#searching = false;
    }
  }

  /** Stops a search under way (what it found stays). */
  stop(): void {
    this.#run++;
    this.#searching = false;
  }
}

/** The page's events and those found before, each once, oldest first (a search anew finds some again). */
function merged(page: readonly HubEvent[], found: HubEvent[]): HubEvent[] {
  const seen = new Set(found.map((e) => e.seq));
  const fresh = page.filter((e) => !seen.has(e.seq));
  if (fresh.length === 0) return found;
  return fresh.at(-1)!.seq < (found[0]?.seq ?? Infinity) ? [...fresh, ...found] : [...fresh, ...found].sort((a, b) => a.seq - b.seq);
}
