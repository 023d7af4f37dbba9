/**
 * Shapes the renderer expects from methods the contract does not have yet (`savings.summary`,
 * `clients.list`). They are proposals for shared/api.ts: a view calls one only when the contract
 * defines the method, and parses the value with these schemas so a different shape degrades to an
 * error note instead of a broken view. Delete each one when its method lands in the contract.
 */
import { z } from 'zod';
import { hasMethod, type ApiFailure, type ApiResult, type Backend } from './api.js';

const TotalsSchema = z.object({
  calls: z.number().int(),
  tokensUpstream: z.number(),
  tokensDelivered: z.number(),
});
export type Totals = z.infer<typeof TotalsSchema>;

const BreakdownSchema = z.array(TotalsSchema.extend({ key: z.string() }));

/** Proposed `savings.summary` response (request: `{}`). */
export const SavingsSummarySchema = z.object({
  today: TotalsSchema,
  week: TotalsSchema,
  all: TotalsSchema,
  byTool: BreakdownSchema,
  byServer: BreakdownSchema,
  byClient: BreakdownSchema,
  /** One point per day, oldest first; `day` is YYYY-MM-DD. */
  daily: z.array(TotalsSchema.extend({ day: z.string() })),
  /** Schema tokens kept out of tools/list by hidden tools and dispatch. */
  schemaTokensSaved: z.number().optional(),
});
export type SavingsSummary = z.infer<typeof SavingsSummarySchema>;

/** Proposed `clients.list` response (request: `{}`). */
export const ClientListSchema = z.array(
  z.object({
    id: z.string(),
    name: z.string(),
    state: z.enum(['not_installed', 'not_connected', 'connected', 'stale']),
    configPath: z.string().optional(),
    lastSeen: z.string().optional(),
  }),
);
export type ClientEntry = z.infer<typeof ClientListSchema>[number];

/** Calls a method the contract may not define yet; `unavailable` when it does not. */
export async function callProvisional<T>(
  backend: Backend,
  method: string,
  schema: z.ZodType<T>,
): Promise<ApiResult<T>> {
  if (!hasMethod(method)) {
    return { ok: false, code: 'unavailable', message: `${method} is not in this version of Spillway yet.` };
  }
  // The contract knows the method but this renderer predates its types: the request is `{}` by proposal.
  const result = await backend.call(method, {} as never);
  if (!result.ok) return result as ApiFailure;
  const parsed = schema.safeParse(result.value);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, code: 'internal', message: `${method} answered in a form this window does not read yet.` };
}
