/** Control contract: searching the event log's files for events older than the window holds. */
import { z } from 'zod';
import { EventFilterSchema, HubEventSchema } from './events.js';

/** Where a search stopped in the event files: the file (by name, one of the log's) and the byte its unread part ends at. */
export const EventSearchCursorSchema = z.strictObject({ file: z.string().min(1).max(200), offset: z.number().int().min(0) });
export type EventSearchCursor = z.infer<typeof EventSearchCursorSchema>;

/**
 * The filters of `events.query` (server, tool, client, level, text, types), searched backwards through the
 * event files from `cursor` (the newest event first when absent), events with seq below `beforeSeq` only.
 * Each answer reads a bounded part of the files: continue with `next` until it is null.
 */
export const EventSearchRequestSchema = EventFilterSchema.pick({ types: true, server: true, tool: true, client: true, level: true, text: true })
  .extend({
    beforeSeq: z.number().int().optional(),
    cursor: EventSearchCursorSchema.optional(),
    limit: z.number().int().min(1).max(500).default(100),
  })
  .strict();
export type EventSearchRequest = z.input<typeof EventSearchRequestSchema>;

export const EventSearchResultSchema = z.object({
  /** Matching events found in this part, oldest first. */
  events: z.array(HubEventSchema),
  /** Where to continue; null once the oldest event file was read to its start. */
  next: EventSearchCursorSchema.nullable(),
  /** Bytes of event files not searched yet (before `next`), and of all of them: how far the search has come. */
  bytesLeft: z.number().int(),
  bytesTotal: z.number().int(),
});
export type EventSearchResult = z.infer<typeof EventSearchResultSchema>;

export const eventsApi = {
  'events.search': { req: EventSearchRequestSchema, res: EventSearchResultSchema },
} as const;
