/**
 * The savings ledger's contract: what is recorded per tool call and per `tools/list`, and the
 * aggregates the Savings view shows. Day buckets are UTC dates (`YYYY-MM-DD`) unless the ledger was
 * given a fixed offset in minutes.
 */
import { z } from 'zod';
import { ResultActionSchema, type ResultAction } from './events.js';

const count = z.number().int().nonnegative();
const isoTime = z.iso.datetime({ offset: true });

/** One tool call: what the upstream produced vs what the client got. */
export const CallRecordSchema = z.object({
  time: isoTime,
  client: z.string().optional(),
  server: z.string(),
  tool: z.string(),
  action: ResultActionSchema,
  tokensUpstream: count,
  tokensDelivered: count,
  /** True when a token count is an estimate (payload over the exact-count size limit). */
  tokensEstimated: z.boolean(),
  bytesUpstream: count,
  bytesDelivered: count,
  latencyMs: z.number().nonnegative(),
  /** The spill handle, when the result was kept. */
  handle: z.string().optional(),
  /** Tokens saved by showing tabular JSON as TOON (issue 18); part of tokensUpstream - tokensDelivered. */
  tokensSavedByEncoding: count.optional(),
});
export type CallRecord = z.infer<typeof CallRecordSchema>;

/** One `tools/list` served: tokens of the upstream tool schemas vs tokens of what was exposed. */
export const ListRecordSchema = z.object({
  time: isoTime,
  client: z.string().optional(),
  tokensUpstreamSchemas: count,
  tokensExposed: count,
});
export type ListRecord = z.infer<typeof ListRecordSchema>;

/** A line of the ledger file: a record tagged with its kind. */
export const LedgerEntrySchema = z.discriminatedUnion('kind', [
  CallRecordSchema.extend({ kind: z.literal('call') }),
  ListRecordSchema.extend({ kind: z.literal('list') }),
]);
export type LedgerEntry = z.infer<typeof LedgerEntrySchema>;

export const ByActionSchema = z.object({
  pass: count,
  spill: count,
  truncate: count,
  cache: count,
  compress: count,
  error: count,
  /** Calls the client cancelled: zero tokens on both sides. */
  cancelled: count,
});

export const SavingsTotalsSchema = z.object({
  calls: count,
  /** `tools/list` responses served. */
  lists: count,
  tokensUpstream: count,
  tokensDelivered: count,
  /** tokensUpstream - tokensDelivered (negative only if results grew, e.g. a small result with a header). */
  tokensSaved: z.number().int(),
  schemaTokensUpstream: count,
  schemaTokensExposed: count,
  schemaTokensSaved: z.number().int(),
  bytesUpstream: count,
  bytesDelivered: count,
  /** Calls whose token counts are estimates. */
  estimatedCalls: count,
  /** Of tokensSaved, what showing tabular JSON as TOON saved (absent in totals made before issue 18). */
  encodingTokensSaved: count.optional(),
  byAction: ByActionSchema,
});
export type SavingsTotals = z.infer<typeof SavingsTotalsSchema>;

export const SavingsReportSchema = z.object({
  allTime: SavingsTotalsSchema,
  /** The current day bucket. */
  today: SavingsTotalsSchema,
  /** Today and the six days before it. */
  last7Days: SavingsTotalsSchema,
  /** Over the queried days (all time when `days` is not given); sorted by tokens saved, most first. */
  byTool: z.array(z.object({ server: z.string(), tool: z.string(), totals: SavingsTotalsSchema })),
  byServer: z.array(z.object({ server: z.string(), totals: SavingsTotalsSchema })),
  /** Calls and lists without a known client are grouped under an absent `client`. */
  byClient: z.array(z.object({ client: z.string().optional(), totals: SavingsTotalsSchema })),
  /** Days that have records, oldest first. */
  byDay: z.array(z.object({ day: z.string(), totals: SavingsTotalsSchema })),
});
export type SavingsReport = z.infer<typeof SavingsReportSchema>;

export const SavingsQuerySchema = z.object({
  /** Restrict byTool/byServer/byClient/byDay to today and the days before it (1 = today only). */
  days: z.number().int().min(1).max(36_500).optional(),
});
export type SavingsQuery = z.input<typeof SavingsQuerySchema>;

/** Pushed after every record: the record and the new all-time totals. */
export const SavingsUpdateSchema = z.object({
  type: z.literal('savings'),
  record: LedgerEntrySchema,
  allTime: SavingsTotalsSchema,
});
export type SavingsUpdate = z.infer<typeof SavingsUpdateSchema>;

export function emptySavingsTotals(): SavingsTotals {
  return {
    calls: 0,
    lists: 0,
    tokensUpstream: 0,
    tokensDelivered: 0,
    tokensSaved: 0,
    schemaTokensUpstream: 0,
    schemaTokensExposed: 0,
    schemaTokensSaved: 0,
    bytesUpstream: 0,
    bytesDelivered: 0,
    estimatedCalls: 0,
    encodingTokensSaved: 0,
    byAction: { pass: 0, spill: 0, truncate: 0, cache: 0, compress: 0, error: 0, cancelled: 0 },
  };
}

/** Adds one entry to running totals in place (pure apart from `totals`; usable in the renderer too). */
export function addToSavingsTotals(totals: SavingsTotals, entry: LedgerEntry): SavingsTotals {
  if (entry.kind === 'call') {
    totals.calls++;
    totals.tokensUpstream += entry.tokensUpstream;
    totals.tokensDelivered += entry.tokensDelivered;
    totals.tokensSaved += entry.tokensUpstream - entry.tokensDelivered;
    totals.bytesUpstream += entry.bytesUpstream;
    totals.bytesDelivered += entry.bytesDelivered;
    if (entry.tokensEstimated) totals.estimatedCalls++;
    if (entry.tokensSavedByEncoding) totals.encodingTokensSaved = (totals.encodingTokensSaved ?? 0) + entry.tokensSavedByEncoding;
    totals.byAction[entry.action as ResultAction]++;
  } else {
    totals.lists++;
    totals.schemaTokensUpstream += entry.tokensUpstreamSchemas;
    totals.schemaTokensExposed += entry.tokensExposed;
    totals.schemaTokensSaved += entry.tokensUpstreamSchemas - entry.tokensExposed;
  }
  return totals;
}

/** Adds totals `b` into `a` in place. */
export function mergeSavingsTotals(a: SavingsTotals, b: SavingsTotals): SavingsTotals {
  a.calls += b.calls;
  a.lists += b.lists;
  a.tokensUpstream += b.tokensUpstream;
  a.tokensDelivered += b.tokensDelivered;
  a.tokensSaved += b.tokensSaved;
  a.schemaTokensUpstream += b.schemaTokensUpstream;
  a.schemaTokensExposed += b.schemaTokensExposed;
  a.schemaTokensSaved += b.schemaTokensSaved;
  a.bytesUpstream += b.bytesUpstream;
  a.bytesDelivered += b.bytesDelivered;
  a.estimatedCalls += b.estimatedCalls;
  if (b.encodingTokensSaved) a.encodingTokensSaved = (a.encodingTokensSaved ?? 0) + b.encodingTokensSaved;
  for (const key of Object.keys(a.byAction) as ResultAction[]) a.byAction[key] += b.byAction[key];
  return a;
}

export function cloneSavingsTotals(t: SavingsTotals): SavingsTotals {
  return { ...t, byAction: { ...t.byAction } };
}
