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
  const found: HubEvent[] = [];
  let budget = options.maxBytes ?? SEARCH_BYTES_PER_REQUEST;
  while (index >= 0 && budget > 0 && found.length < req.limit) {
    const read = await readLinesBackward(segments[index]!.path, offset, budget, (line) => {
      // The line is the event's JSON as stored: one not holding the text cannot match, and is not parsed.
      if (needle !== undefined && !line.toLowerCase().includes(needle)) return true;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        return true;
      }
      if (!options.isEvent(value) || (req.beforeSeq !== undefined && value.seq >= req.beforeSeq)) return true;
      if (matchesFilter(value, req)) found.push(value);
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
  return { events: found.reverse(), next, bytesLeft, bytesTotal };
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
