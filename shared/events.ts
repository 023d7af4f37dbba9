/**
 * The hub's one typed event stream: what the live log, the ledger and the UI consume.
 * Every event has a sequence number, an ISO time and a level; the rest depends on `type`.
 */
import { z } from 'zod';

/**
 * 'idle': started on first use, not running now (issue 18); its kept lists serve until a call starts it.
 * 'needs-sign-in': an HTTP or SSE server answered 401 and the user must sign in (issue 15).
 */
export const UpstreamStatusSchema = z.enum(['connecting', 'ready', 'error', 'stopped', 'disabled', 'idle', 'needs-sign-in']);
export type UpstreamStatus = z.infer<typeof UpstreamStatusSchema>;

export const LevelSchema = z.enum(['debug', 'info', 'warn', 'error']);
export type Level = z.infer<typeof LevelSchema>;

const base = {
  seq: z.number().int(),
  time: z.string(),
  level: LevelSchema,
};

/** What became of a call; 'cancelled': the client cancelled it (or closed its session) before the answer. */
export const ResultActionSchema = z.enum(['pass', 'spill', 'truncate', 'cache', 'compress', 'error', 'cancelled']);
export type ResultAction = z.infer<typeof ResultActionSchema>;

export const HubEventSchema = z.discriminatedUnion('type', [
  z.object({
    ...base,
    type: z.literal('upstream.status'),
    server: z.string(),
    status: UpstreamStatusSchema,
    error: z.string().optional(),
    tools: z.number().int().optional(),
  }),
  z.object({
    ...base,
    type: z.literal('upstream.stderr'),
    server: z.string(),
    line: z.string(),
  }),
  z.object({
    ...base,
    type: z.literal('call.started'),
    callId: z.string(),
    session: z.string().optional(),
    client: z.string().optional(),
    server: z.string(),
    tool: z.string(),
    /** The name the client called (namespaced). */
    exposedName: z.string(),
    argumentsPreview: z.string().optional(),
    /**
     * Hidden parameters the client sent anyway: the preview shows the client's values, but the upstream got
     * the policy's (never logged).
     */
    hiddenParamsReplaced: z.array(z.string()).optional(),
  }),
  z.object({
    ...base,
    type: z.literal('call.finished'),
    callId: z.string(),
    session: z.string().optional(),
    client: z.string().optional(),
    server: z.string(),
    tool: z.string(),
    exposedName: z.string(),
    durationMs: z.number(),
    isError: z.boolean(),
    action: ResultActionSchema,
    bytesUpstream: z.number().int(),
    bytesDelivered: z.number().int(),
    tokensUpstream: z.number().int().optional(),
    tokensDelivered: z.number().int().optional(),
    /** tokensUpstream is an estimate (a big result counted from its start); a `call.counted` follows with the exact count. */
    tokensEstimated: z.boolean().optional(),
    /**
     * The size the UI shows: the result as the model reads it (its text plus its images', audio's and
     * files' bytes), not its JSON (bytesUpstream), which may hold the same data twice (text and structuredContent).
     */
    resultBytes: z.number().int().optional(),
    /** The same measure of what was delivered. */
    resultBytesDelivered: z.number().int().optional(),
    handle: z.string().optional(),
    error: z.string().optional(),
    /** A cache hit: ms the original upstream call took (the time this hit saved). */
    savedMs: z.number().optional(),
  }),
  z.object({
    ...base,
    /**
     * The exact counts of a finished call, once the ledger made them (after the answer): the ones Savings and
     * the spilled original show. A read of a kept result (spillway__read_result, or resources/read of its
     * address) has no `call.finished`, since the hub answers it itself: this event alone tells of it
     * (`readBack`), once the ledger holds it, with nothing produced and what was read back delivered. So
     * does an answer spillway__dispatch makes itself (`dispatchAnswer`). A `tools/list` record, which lands
     * after the list went out, is told the same way (`listed`).
     */
    type: z.literal('call.counted'),
    callId: z.string(),
    server: z.string(),
    tool: z.string(),
    exposedName: z.string(),
    tokensUpstream: z.number().int(),
    tokensDelivered: z.number().int(),
    /** Still an estimate: the result was too big to count exactly. */
    tokensEstimated: z.boolean(),
    /** A read of a kept result: no `call.finished` came before, and the ledger holds one call more. */
    readBack: z.literal(true).optional(),
    /**
     * An answer of spillway__dispatch itself (list, search, describe, or why it cannot do what was asked):
     * as for a read-back, no `call.finished` came before, and the ledger holds one call more.
     */
    dispatchAnswer: z.literal(true).optional(),
    /**
     * A `tools/list` record (no call; server "spillway", tool "tools/list"): tokensUpstream are the upstream
     * schemas' tokens, tokensDelivered those of what the list exposed; the ledger holds one list more.
     */
    listed: z.literal(true).optional(),
  }),
  z.object({
    ...base,
    type: z.literal('tool.withheld'),
    server: z.string(),
    /** The upstream's own name. */
    tool: z.string(),
    oldDescription: z.string().nullable(),
    newDescription: z.string().nullable(),
    /** `+ path` added, `- path` removed, `~ path` changed (paths into inputSchema). */
    schemaDiff: z.array(z.string()),
  }),
  z.object({
    ...base,
    type: z.literal('tool.approved'),
    server: z.string(),
    tool: z.string(),
  }),
  z.object({
    ...base,
    type: z.literal('session.opened'),
    session: z.string(),
    client: z.string().optional(),
    clientVersion: z.string().optional(),
    transport: z.enum(['http', 'stdio', 'bridge']),
  }),
  z.object({
    ...base,
    type: z.literal('session.closed'),
    session: z.string(),
    client: z.string().optional(),
  }),
  z.object({
    ...base,
    type: z.literal('session.reaped'),
    session: z.string(),
    client: z.string().optional(),
    /** 'idle': nothing came for the idle timeout; 'cap': too many HTTP sessions were open, the least recently used went. */
    reason: z.enum(['idle', 'cap']),
    /** How long the session had been idle. */
    idleMs: z.number().int().nonnegative(),
  }),
  z.object({
    ...base,
    type: z.literal('catalog.changed'),
    tools: z.number().int(),
    resources: z.number().int(),
    prompts: z.number().int(),
  }),
  z.object({
    ...base,
    type: z.literal('config.changed'),
    what: z.string(),
  }),
  z.object({
    ...base,
    type: z.literal('log'),
    message: z.string(),
    server: z.string().optional(),
  }),
]);
export type HubEvent = z.infer<typeof HubEventSchema>;
export type HubEventType = HubEvent['type'];

/** An event before the log stamps it with seq and time. */
export type HubEventInput = HubEvent extends infer E ? (E extends HubEvent ? Omit<E, 'seq' | 'time'> & { time?: string } : never) : never;

export const EventFilterSchema = z.object({
  types: z.array(z.string()).optional(),
  server: z.string().optional(),
  tool: z.string().optional(),
  client: z.string().optional(),
  /** Minimum level. */
  level: LevelSchema.optional(),
  /** Case-insensitive text contained in the event's JSON. */
  text: z.string().max(500).optional(),
  /** Only events with seq greater than this. */
  afterSeq: z.number().int().optional(),
  /** Only events at or after this ISO time (also reads rotated files on disk). */
  since: z.string().optional(),
  limit: z.number().int().min(1).max(10_000).default(500),
});
export type EventFilter = z.input<typeof EventFilterSchema>;

const LEVEL_RANK: Record<Level, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** Pure filter used by the ring, the on-disk query and the renderer alike. */
export function matchesFilter(event: HubEvent, filter: EventFilter): boolean {
  if (filter.types && filter.types.length > 0 && !filter.types.includes(event.type)) return false;
  if (filter.afterSeq !== undefined && event.seq <= filter.afterSeq) return false;
  if (filter.since !== undefined && event.time < filter.since) return false;
  if (filter.level && LEVEL_RANK[event.level] < LEVEL_RANK[filter.level]) return false;
  const rec = event as Record<string, unknown>;
  if (filter.server && rec.server !== filter.server) return false;
  if (filter.tool && rec.tool !== filter.tool && rec.exposedName !== filter.tool) return false;
  if (filter.client && rec.client !== filter.client) return false;
  if (filter.text) {
    // The text as written, or as the event's JSON holds it (a backslash or quote escaped there).
    const json = JSON.stringify(event).toLowerCase();
    const needle = filter.text.toLowerCase();
    if (!json.includes(needle) && !json.includes(JSON.stringify(needle).slice(1, -1))) return false;
  }
  return true;
}
