/** Control contract: the spill store and the savings ledger. */
import { z } from 'zod';
import { SavingsQuerySchema, SavingsReportSchema } from './ledger.js';

export const SpillEntryInfoSchema = z.object({
  handle: z.string(),
  server: z.string(),
  tool: z.string(),
  client: z.string().nullable(),
  createdAt: z.string(),
  expiresAt: z.string(),
  lastAccess: z.string(),
  /** UTF-8 size of the whole result as JSON (text and structuredContent both, when it had both). */
  bytes: z.number().int(),
  /** The size the UI shows: the result as the model reads it (its text view); absent when it holds images or files. */
  resultBytes: z.number().int().optional(),
  lines: z.number().int(),
  tokens: z.number().int().nullable(),
  tokensEstimated: z.boolean(),
  contentType: z.string(),
});
export type SpillEntryInfo = z.infer<typeof SpillEntryInfoSchema>;

export const SpillUsageSchema = z.object({
  entries: z.number().int(),
  /** Everything on disk that Clear removes: the live results and `unlistedBytes`. */
  bytes: z.number().int(),
  quotaBytes: z.number().int(),
  /** Result folders a damaged index left on disk for this run (not listed, removed by Clear or at the next start). */
  unlisted: z.number().int().optional(),
  unlistedBytes: z.number().int().optional(),
});
export type SpillUsage = z.infer<typeof SpillUsageSchema>;

const handleReq = z.object({ handle: z.string().min(1) });

const count = (min: number, max = Number.MAX_SAFE_INTEGER) => z.number().int().min(min).max(max).optional();

/**
 * One read op on a spilled result, the arguments and limits of the model's `spillway__read_result`
 * (its output capped at ~8,000 tokens): the window's viewer pages, searches and saves through it.
 */
export const SpillReadRequestSchema = z.strictObject({
  handle: z.string().min(1),
  op: z.enum(['stat', 'head', 'tail', 'slice', 'grep', 'query', 'read']),
  lines: count(1),
  start: count(1),
  end: count(1),
  pattern: z.string().optional(),
  caseSensitive: z.boolean().optional(),
  context: count(0, 20),
  maxMatches: count(1, 1000),
  query: z.string().optional(),
  offset: count(0),
  maxTokens: count(1),
});
export type SpillReadRequest = z.infer<typeof SpillReadRequestSchema>;

export const spillApi = {
  'spill.list': { req: z.object({}).strict(), res: z.array(SpillEntryInfoSchema) },
  'spill.preview': {
    req: z.object({ handle: z.string().min(1), maxTokens: z.number().int().min(10).max(20_000).default(1_000) }),
    res: z.object({ entry: SpillEntryInfoSchema, text: z.string(), truncated: z.boolean() }),
  },
  'spill.read': { req: SpillReadRequestSchema, res: z.object({ text: z.string() }) },
  'spill.delete': { req: handleReq, res: z.object({ deleted: z.boolean() }) },
  'spill.clear': { req: z.object({}).strict(), res: z.object({ deleted: z.number().int() }) },
  'spill.usage': { req: z.object({}).strict(), res: SpillUsageSchema },
  'savings.report': { req: SavingsQuerySchema, res: SavingsReportSchema },
} as const;
