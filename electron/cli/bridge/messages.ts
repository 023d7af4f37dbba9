/**
 * The few fields of a JSON-RPC message the bridge looks at, read leniently: the bridge forwards lines as
 * the bytes they came as, and parses one only to learn what it must track (ids, initialize, subscriptions).
 */
import { oversizedResponseId } from '../../core/wire/line-framer.js';

export type Id = string | number;

/** How much of a big line's start and end may hold its id (as the wire framer keeps of an oversized one). */
const EDGE = 1024;

/** The fields of a JSON-RPC message the bridge looks at. */
export interface Peek {
  jsonrpc?: string;
  id?: Id | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: unknown;
}

/** The line's JSON object, or undefined when it is not one. */
export function peek(line: Buffer): Peek | undefined {
  try {
    const m: unknown = JSON.parse(line.toString('utf8'));
    return m !== null && typeof m === 'object' && !Array.isArray(m) ? (m as Peek) : undefined;
  } catch {
    return undefined;
  }
}

/** The id of a big response, read at the line's two ends only. */
export function bigLineId(raw: Buffer): Id | undefined {
  const tail = raw
    .subarray(-EDGE - 1)
    .toString('utf8')
    .trimEnd();
  return oversizedResponseId({ head: raw.subarray(0, EDGE).toString('utf8'), tail });
}

export const isRequest = (m: Peek | undefined): m is Peek & { id: Id; method: string } =>
  m?.method !== undefined && m.id !== undefined && m.id !== null;
export const isResponse = (m: Peek | undefined): m is Peek & { id: Id } => m?.method === undefined && m?.id !== undefined && m.id !== null;

/** A message as one newline-terminated line. */
export const jsonLine = (message: unknown): Buffer => Buffer.from(`${JSON.stringify(message)}\n`);
/** A JSON-RPC error answer (an internal error unless told: -32600 for a request the bridge refuses as invalid). */
export const errorLine = (id: Id, message: string, code = -32603): Buffer => jsonLine({ jsonrpc: '2.0', id, error: { code, message } });
