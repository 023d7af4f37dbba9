/**
 * Searching the event files backwards for events older than the window holds (`events.search`): newest
 * first, a bounded number of bytes per request, read in chunks so the hub's thread is never held long.
 * The answer says where to continue, so a window pages through a large log one request at a time.
 */
import { stat } from 'node:fs/promises';
import { matchesFilter, type HubEvent } from '../../../shared/events.js';
import type { EventSearchCursor, EventSearchRequest, EventSearchResult } from '../../../shared/api-events.js';
import { EventSearchRequestSchema } from '../../../shared/api-events.js';
import { compareSegments, parseSegmentFileName, readLinesBackward, type JournalSegment } from './journal-files.js';

/** Bytes of event files one request reads at most (about 10,000 events). */
export const SEARCH_BYTES_PER_REQUEST = 4 * 1024 * 1024;
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
}

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
  let index = segments.length - 1;
  let offset = index >= 0 ? sizes[index]! : 0;
  if (req.cursor) [index, offset] = placeCursor(req.cursor, segments, sizes, options);
  const needle = req.text?.toLowerCase();
  // The stored line is JSON: a backslash or quote in the text is escaped there.
  const escaped = needle === undefined ? undefined : JSON.stringify(needle).slice(1, -1);
  const found: HubEvent[] = [];
  // Finished calls passing the filters but the text, by call id: the window finds a finished call by its
  // start's arguments too, so one whose start (read later, being older) matches is returned with it.
  const unmatched = new Map<string, HubEvent>();
  let budget = options.maxBytes ?? SEARCH_BYTES_PER_REQUEST;
  while (index >= 0 && budget > 0 && found.length < req.limit) {
    const read = await readLinesBackward(segments[index]!.path, offset, budget, (line) => {
      // The line is the event's JSON as stored: one not holding the text cannot match, and is not parsed.
      let holdsText = true;
      if (needle !== undefined && escaped !== undefined) {
        const lower = line.toLowerCase();
        holdsText = lower.includes(needle) || lower.includes(escaped);
        // A finished call not holding the text may still match by its start's arguments (see below).
        if (!holdsText && !line.includes('call.finished')) return true;
      }
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        return true;
      }
      if (!options.isEvent(value) || (req.beforeSeq !== undefined && value.seq >= req.beforeSeq)) return true;
      if (holdsText && matchesFilter(value, req)) {
        found.push(value);
        const finished = value.type === 'call.started' ? unmatched.get(value.callId) : undefined;
        if (finished) found.push(finished);
      } else if (needle !== undefined && value.type === 'call.finished' && matchesFilter(value, { ...req, text: undefined })) {
        unmatched.set(value.callId, value);
        if (unmatched.size > MAX_UNMATCHED_FINISHED) unmatched.delete(unmatched.keys().next().value!);
      }
      return found.length < req.limit;
    });
    budget -= Math.max(1, read.bytesRead);
    offset = read.offset;
    if (offset === 0) {
      index--;
      offset = index >= 0 ? sizes[index]! : 0;
    }
  }
  const next = index >= 0 ? { file: segments[index]!.file, offset } : null;
  const bytesLeft = index >= 0 ? offset + sizes.slice(0, index).reduce((a, b) => a + b, 0) : 0;
  return { events: found.sort((a, b) => a.seq - b.seq), next, bytesLeft, bytesTotal };
}

/**
 * The file and offset a cursor names. A file deleted since (retention) continues with the newest file
 * older than it; an offset past a file's end (it cannot grow backwards) is taken as its end.
 */
function placeCursor(cursor: EventSearchCursor, segments: JournalSegment[], sizes: number[], options: SearchOptions): [number, number] {
  const at = segments.findIndex((s) => s.file === cursor.file);
  if (at >= 0) return [at, Math.min(cursor.offset, sizes[at]!)];
  const parsed = parseSegmentFileName(options.name, options.daily, cursor.file);
  if (!parsed) return [-1, 0];
  const gone = { file: cursor.file, path: '', ...parsed };
  let index = -1;
  for (let i = 0; i < segments.length; i++) if (compareSegments(segments[i]!, gone) < 0) index = i;
  return [index, index >= 0 ? sizes[index]! : 0];
}
