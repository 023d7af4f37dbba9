/**
 * A call record made without zod when it is well formed: CallRecordSchema.parse cost more than the rest
 * of recording a call. Anything the check does not vouch for goes to the schema, which throws as before.
 */
import { ResultActionSchema } from '../../../shared/events.js';
import { CallRecordSchema, type CallRecord, type LedgerEntry } from '../../../shared/ledger.js';

const ACTIONS: ReadonlySet<unknown> = new Set(ResultActionSchema.options);

/** What recordCall is given: a record whose time may be left to the ledger's clock. */
export type CallRecordInput = Omit<CallRecord, 'time'> & { time?: string };

type CallEntry = Extract<LedgerEntry, { kind: 'call' }>;

/**
 * The ledger line of a call: the record as CallRecordSchema would parse it (its keys in the schema's
 * order, unknown keys dropped), stamped with `time` when it has none. Throws a ZodError when malformed.
 */
export function callEntry(input: CallRecordInput, now: () => string): CallEntry {
  if (input.time !== undefined || !wellFormed(input)) return { kind: 'call', ...CallRecordSchema.parse({ ...input, time: input.time ?? now() }) };
  const record = { kind: 'call', time: now() } as CallEntry;
  if (input.client !== undefined) record.client = input.client;
  record.server = input.server;
  record.tool = input.tool;
  record.action = input.action;
  record.tokensUpstream = input.tokensUpstream;
  record.tokensDelivered = input.tokensDelivered;
  record.tokensEstimated = input.tokensEstimated;
  record.bytesUpstream = input.bytesUpstream;
  record.bytesDelivered = input.bytesDelivered;
  record.latencyMs = input.latencyMs;
  if (input.handle !== undefined) record.handle = input.handle;
  if (input.tokensSavedByEncoding !== undefined) record.tokensSavedByEncoding = input.tokensSavedByEncoding;
  return record;
}

function wellFormed(r: CallRecordInput): boolean {
  return (
    (r.client === undefined || typeof r.client === 'string') &&
    typeof r.server === 'string' &&
    typeof r.tool === 'string' &&
    ACTIONS.has(r.action) &&
    isCount(r.tokensUpstream) &&
    isCount(r.tokensDelivered) &&
    typeof r.tokensEstimated === 'boolean' &&
    isCount(r.bytesUpstream) &&
    isCount(r.bytesDelivered) &&
    typeof r.latencyMs === 'number' &&
    Number.isFinite(r.latencyMs) &&
    r.latencyMs >= 0 &&
    (r.handle === undefined || typeof r.handle === 'string') &&
    (r.tokensSavedByEncoding === undefined || isCount(r.tokensSavedByEncoding))
  );
}

/** z.number().int().nonnegative(): a safe integer from 0. */
function isCount(n: unknown): boolean {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
}
