/**
 * Searching the event files backwards for events older than the window holds (`events.search`): newest
 * first, a bounded number of bytes per request, read in chunks so the hub's thread is never held long.
 * The answer says where to continue, so a window pages through a large log one request at a time.
 *
 * Events are matched as the Activity window matches its rows: a finished call is one row with its start
 * (searched by its start's arguments too), and the text matches what a row reads as well as the stored
 * event (the window's own wording, shared/event-summary.ts, with numbers as en-US writes them). A call is
 * returned whole, its start and its end, even when they lie in different parts of the files: a bounded
 * look beyond the part read finds the other half.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { matchesFilter, type EventFilter, type HubEvent } from '../../../shared/events.js';
import { plainNumbers, summarizeEvent } from '../../../shared/event-summary.js';
import type { EventSearchCursor, EventSearchRequest, EventSearchResult } from '../../../shared/api-events.js';
import { EventSearchRequestSchema } from '../../../shared/api-events.js';
import { compareSegments, parseSegmentFileName, readLinesBackward, type JournalSegment } from './journal-files.js';

/** Bytes of event files one request reads at most (about 10,000 events). */
export const SEARCH_BYTES_PER_REQUEST = 4 * 1024 * 1024;
/** Bytes a request reads at most beyond its part, each way, for the other half of a call it returns. */
export const COMPANION_BYTES = 1024 * 1024;
/** Finished calls one request keeps, waiting for their start to match the text. */
export const MAX_UNMATCHED_FINISHED = 1000;

export interface SearchOptions {
  /** The event files, oldest first. */
  segments: JournalSegment[];
  /** The journal's name and whether its files are daily (to place a cursor whose file is gone). */
  name: string;
  daily: boolean;
  isEvent(value: unknown): value is HubEvent;
  maxBytes?: number;
  companionBytes?: number;
}

type Started = Extract<HubEvent, { type: 'call.started' }>;
type Finished = Extract<HubEvent, { type: 'call.finished' }>;
/** A place in the event files: the file's index and the byte the unread part ends at (or starts at, forwards). */
type Place = [index: number, offset: number];

export async function searchEvents(request: EventSearchRequest, options: SearchOptions): Promise<EventSearchResult> {
  const req = EventSearchRequestSchema.parse(request);
  const { segments } = options;
  const sizes = await Promise.all(
    segments.map((s) =>
      stat(s.path).then(
        (st) => st.size,
        () => 0,
      ),
    ),
  );
  const bytesTotal = sizes.reduce((a, b) => a + b, 0);
  const last = segments.length - 1;
  const from: Place = req.cursor ? placeCursor(req.cursor, segments, sizes, options) : [last, last >= 0 ? sizes[last]! : 0];
  const needle = req.text?.toLowerCase();
  const filters: EventFilter = { ...req, text: undefined };
  // A search by type (not the window's) matches events one by one, calls not folded into rows.
  const byRow = !req.types || req.types.length === 0;
  // The stored line is the event's JSON: the text is looked for there, as typed or escaped (a backslash or quote).
  const escaped = needle === undefined ? '' : JSON.stringify(needle).slice(1, -1);
  let line = '';
  const rowMatches = (e: HubEvent, args?: string, json = JSON.stringify(e)) =>
    needle === undefined || textMatches(e, json.toLowerCase(), needle, escaped, args);
  const older = (value: unknown): value is HubEvent => options.isEvent(value) && (req.beforeSeq === undefined || value.seq < req.beforeSeq);

  const found: HubEvent[] = [];
  // Finished calls passing the filters but the text, by call id: the row is searched by its start's arguments too.
  const unmatched = new Map<string, Finished>();
  // Finished calls not passing the filters: their start is no row of its own.
  const hidden = new Set<string>();
  // Calls returned without their start (older: read later) or without their end (newer: read before this part).
  const wantStart = new Set<string>();
  const wantEnd = new Map<string, Started>();
  // Starts holding the text but below the level, whose end is not read yet: a failed call's row (a warning)
  // is found by its start's arguments too, which the part that read its end, or the window, did not have.
  const mayEnd = new Map<string, Started>();
  // Finished calls the window holds (seq from beforeSeq on), read in this part: they settle starts read later.
  const heldEnds = new Map<string, Finished>();
  const sameCall: EventFilter = { ...filters, level: undefined };

  /** A call's end read after its start: the call is the end's row, searched by the start's arguments too. */
  const settle = (end: Finished, start: Started) => {
    const returned = wantEnd.delete(end.callId);
    mayEnd.delete(end.callId);
    const row = matchesFilter(end, filters) && rowMatches(end, start.argumentsPreview);
    if (!returned) {
      // Matched by the arguments alone (else the end was returned when read, or the window shows it).
      if (row && !rowMatches(end)) found.push(start, ...(older(end) ? [end] : []));
    } else if (!older(end)) {
      // The window holds the end and folds the returned start into its row.
    } else if (row) found.push(end);
    else found.splice(found.indexOf(start), 1);
  };

  const visit = (e: HubEvent): boolean => {
    if (!byRow) {
      if (matchesFilter(e, req)) found.push(e);
    } else if (e.type === 'call.finished') {
      if (!matchesFilter(e, filters)) bounded(hidden, e.callId);
      else if (rowMatches(e, undefined, line)) {
        found.push(e);
        wantStart.add(e.callId);
      } else bounded(unmatched, e.callId, e);
    } else if (e.type === 'call.started') {
      const end = unmatched.get(e.callId);
      if (wantStart.delete(e.callId)) found.push(e);
      else if (end) {
        unmatched.delete(e.callId);
        if (rowMatches(end, e.argumentsPreview)) found.push(end, e);
      } else if (hidden.has(e.callId)) {
        // its end does not pass the filters: the call is no row
      } else if (matchesFilter(e, filters) && rowMatches(e, undefined, line)) {
        found.push(e);
        wantEnd.set(e.callId, e);
      } else if (needle !== undefined && matchesFilter(e, sameCall) && rowMatches(e, undefined, line)) {
        const held = heldEnds.get(e.callId);
        if (held) settle(held, e);
        else bounded(mayEnd, e.callId, e);
      }
    } else if (matchesFilter(e, filters) && rowMatches(e, undefined, line)) found.push(e);
    return found.length < req.limit;
  };
  const [index, offset] = await readBackward(segments, sizes, from, options.maxBytes ?? SEARCH_BYTES_PER_REQUEST, (value, text) => {
    line = text;
    if (older(value)) return visit(value);
    if (byRow && options.isEvent(value) && value.type === 'call.finished') bounded(heldEnds, value.callId, value);
    return true;
  });

  const companionBytes = options.companionBytes ?? COMPANION_BYTES;
  if (wantStart.size > 0) {
    await readBackward(segments, sizes, [index, offset], companionBytes, (e) => {
      if (older(e) && e.type === 'call.started' && wantStart.delete(e.callId)) found.push(e);
      return wantStart.size > 0;
    });
  }
  if (wantEnd.size + mayEnd.size > 0) {
    await readForward(segments, sizes, from, companionBytes, (e) => {
      if (!options.isEvent(e)) return true;
      // The window holds the rest and folds a returned start itself; a start not returned needs its end's verdict.
      if (!older(e) && mayEnd.size === 0) return false;
      const start = e.type === 'call.finished' ? (wantEnd.get(e.callId) ?? mayEnd.get(e.callId)) : undefined;
      if (start && e.type === 'call.finished') settle(e, start);
      return wantEnd.size + mayEnd.size > 0;
    });
  }
  const next = index >= 0 ? { file: segments[index]!.file, offset } : null;
  const bytesLeft = index >= 0 ? offset + sizes.slice(0, index).reduce((a, b) => a + b, 0) : 0;
  return { events: unique(found), next, bytesLeft, bytesTotal };
}

/**
 * The text as the window matches a row (`needle` in lower case; `escaped` as JSON writes it): the stored
 * event (`json`, in lower case), the words its row reads, and a finished call's start's arguments.
 */
function textMatches(e: HubEvent, json: string, needle: string, escaped: string, args?: string): boolean {
  if (json.includes(needle) || json.includes(escaped)) return true;
  return summarizeEvent(e, plainNumbers).toLowerCase().includes(needle) || (args?.toLowerCase().includes(needle) ?? false);
}

/** Adds to a bounded set or map, forgetting the oldest entry past MAX_UNMATCHED_FINISHED. */
function bounded<V>(into: Set<string> | Map<string, V>, key: string, value?: V): void {
  if (into instanceof Map) into.set(key, value!);
  else into.add(key);
  if (into.size > MAX_UNMATCHED_FINISHED) into.delete(into.keys().next().value!);
}

function unique(events: HubEvent[]): HubEvent[] {
  const seen = new Set<number>();
  return events.filter((e) => !seen.has(e.seq) && seen.add(e.seq)).sort((a, b) => a.seq - b.seq);
}

/**
 * Reads the events before `from` backwards, file after file, until about `maxBytes` were read or `visit`
 * returns false; returns where the unread part ends (index -1 once the oldest file was read to its start).
 */
async function readBackward(
  segments: JournalSegment[],
  sizes: number[],
  from: Place,
  maxBytes: number,
  visit: (value: unknown, line: string) => boolean,
): Promise<Place> {
  let [index, offset] = from;
  let budget = maxBytes;
  let going = true;
  while (index >= 0 && budget > 0 && going) {
    const read = await readLinesBackward(segments[index]!.path, offset, budget, (line) => {
      const value = parseLine(line);
      going = value === undefined || visit(value, line);
      return going;
    });
    budget -= Math.max(1, read.bytesRead);
    offset = read.offset;
    if (offset === 0) {
      index--;
      offset = index >= 0 ? sizes[index]! : 0;
    }
  }
  return [index, offset];
}

/** Reads the events from `from` on (a line's start) forwards, into newer files, until about `maxBytes` or `visit` says stop. */
async function readForward(
  segments: JournalSegment[],
  sizes: number[],
  from: Place,
  maxBytes: number,
  visit: (value: unknown) => boolean,
): Promise<void> {
  let budget = maxBytes;
  for (let index = Math.max(0, from[0]), offset = from[0] >= 0 ? from[1] : 0; index < segments.length; index++, offset = 0) {
    if (offset >= sizes[index]!) continue;
    const stream = createReadStream(segments[index]!.path, { start: offset, end: sizes[index]! - 1, encoding: 'utf8' });
    const lines = createInterface({ input: stream, crlfDelay: Infinity });
    try {
      for await (const line of lines) {
        budget -= Buffer.byteLength(line) + 1;
        const value = parseLine(line);
        if ((value !== undefined && !visit(value)) || budget <= 0) return;
      }
    } catch {
      // a file deleted since (retention): the newer ones are still read
    } finally {
      lines.close();
      stream.destroy();
    }
  }
}

/** The stored line's JSON; undefined for a torn or damaged line. */
function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/**
 * The file and offset a cursor names. A file deleted since (retention) continues with the newest file
 * older than it; an offset past a file's end (it cannot grow backwards) is taken as its end.
 */
function placeCursor(cursor: EventSearchCursor, segments: JournalSegment[], sizes: number[], options: SearchOptions): Place {
  const at = segments.findIndex((s) => s.file === cursor.file);
  if (at >= 0) return [at, Math.min(cursor.offset, sizes[at]!)];
  const parsed = parseSegmentFileName(options.name, options.daily, cursor.file);
  if (!parsed) return [-1, 0];
  const gone = { file: cursor.file, path: '', ...parsed };
  let index = -1;
  for (let i = 0; i < segments.length; i++) if (compareSegments(segments[i]!, gone) < 0) index = i;
  return [index, index >= 0 ? sizes[index]! : 0];
}
