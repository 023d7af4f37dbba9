/**
 * Walking a parsed message for the placeholders the raw spool (raw-spool.ts) left in place of its long
 * strings, and putting the texts back.
 */
import { readFile, rm } from 'node:fs/promises';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { SpooledString } from './raw-spool.js';

/**
 * A message as the upstream sent it: each placeholder replaced by its text read back from disk once
 * written (without blocking: such a text may be many megabytes), the files deleted. For messages whose
 * texts nobody adopts, and for a tool result that spill/raw-texts.ts hands back whole.
 */
export async function inlineSpooled<T>(message: T, strings: readonly SpooledString[]): Promise<T> {
  const texts = new Map<string, string>();
  try {
    for (const s of strings) {
      await s.written;
      texts.set(s.placeholder, await readFile(s.path, 'utf8'));
    }
  } finally {
    await removeSpooled(strings);
  }
  return replaceStrings(message, (s) => texts.get(s)) as T;
}

/** Deletes spooled texts' files once their writing has settled (a file still being created would come back). */
export async function removeSpooled(strings: Iterable<SpooledString>): Promise<void> {
  const remove = (s: SpooledString) => s.written.catch(() => undefined).then(() => rm(s.path, { force: true }).catch(() => undefined));
  await Promise.all([...strings].map(remove));
}

/**
 * inlineSpooled for a transport: when the texts cannot be read back, a response becomes an error answer
 * to its request (so the request does not wait for its timeout), and anything else an Error to report.
 */
export async function inlinedMessage(message: JSONRPCMessage, strings: readonly SpooledString[]): Promise<JSONRPCMessage | Error> {
  try {
    return await inlineSpooled(message, strings);
  } catch (error) {
    const why = `the server's message could not be read back from disk: ${(error as Error).message}`;
    if (!('id' in message) || 'method' in message) return new Error(why);
    return { jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InternalError, message: why } };
  }
}

/** Calls `visit` with every string in `value`, object keys included, at any depth. */
export function visitStrings(value: unknown, visit: (s: string) => void): void {
  if (typeof value === 'string') visit(value);
  else if (Array.isArray(value)) for (const item of value) visitStrings(item, visit);
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      visit(key);
      visitStrings(item, visit);
    }
  }
}

/** A copy of `value` with the strings `swap` knows replaced (keys too); untouched branches are shared. */
export function replaceStrings(value: unknown, swap: (s: string) => string | undefined): unknown {
  if (typeof value === 'string') return swap(value) ?? value;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((item) => {
      const next = replaceStrings(item, swap);
      if (next !== item) changed = true;
      return next;
    });
    return changed ? out : value;
  }
  if (value !== null && typeof value === 'object') {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const k = swap(key) ?? key;
      const next = replaceStrings(item, swap);
      if (next !== item || k !== key) changed = true;
      out[k] = next;
    }
    return changed ? out : value;
  }
  return value;
}
