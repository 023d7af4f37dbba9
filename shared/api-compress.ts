/** Control contract: the compression model (issue 8). */
import { z } from 'zod';

export const CompressionTestResultSchema = z.object({
  ok: z.boolean(),
  /** Round trip of one tiny completion. */
  latencyMs: z.number(),
  /** The model that answered (as the endpoint names it). */
  model: z.string().optional(),
  /** Why the test failed, in one line (never holds the API key). */
  error: z.string().optional(),
});
export type CompressionTestResult = z.infer<typeof CompressionTestResultSchema>;

export const compressApi = {
  /** The Settings "Test" button: one tiny completion with the saved compression settings. */
  'compression.test': { req: z.object({}).strict(), res: CompressionTestResultSchema },
} as const;
