/**
 * What the line framer does with a line whose long strings the disk refused (read-only, full): the message
 * with each text cut to the head kept in memory; and how it tells a line that may be a message from noise.
 */
import { StringDecoder } from 'node:string_decoder';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { formatCount } from '../../../shared/plain-text.js';
import { CUT_META_KEY, type SpooledString } from './raw-spool.js';

/**
 * The message with each spooled string replaced by its head (what was kept in memory), and a note of
 * how much is missing and why, for a line whose files the disk refused. A string the head holds whole is kept as it was.
 */
export function cutToHeads(message: JSONRPCMessage, strings: SpooledString[], error: unknown): JSONRPCMessage {
  const reason = (error as Error)?.message ?? String(error);
  const texts = new Map<string, string>();
  let [keptBytes, allBytes] = [0, 0];
  for (const s of strings) {
    // A character cut at the head's end is dropped.
    const head = new StringDecoder('utf8').write(s.head);
    const kept = Buffer.byteLength(head, 'utf8');
    keptBytes += kept;
    allBytes += s.bytes;
    texts.set(
      s.placeholder,
      kept >= s.bytes
        ? head
        : `${head}\n\n[Spillway: this text is cut here, at ${formatCount(kept)} of its ${formatCount(s.bytes)} bytes: ` +
            `the rest could not be written to disk (${reason}). Free space on the disk of Spillway's data folder, or call the tool again with narrower arguments.]`,
    );
  }
  const replace = (value: unknown): unknown => {
    if (typeof value === 'string') return texts.get(value) ?? value;
    if (typeof value !== 'object' || value === null) return value;
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) record[key] = replace(record[key]);
    return value;
  };
  replace(message);
  // A result says so, for the spill store not to keep what is only its start (it answers with a preview).
  const result = 'result' in message ? (message.result as Record<string, unknown>) : undefined;
  if (keptBytes < allBytes && typeof result === 'object' && result !== null) {
    const why = `only ${formatCount(keptBytes)} of its ${formatCount(allBytes)} bytes of text reached Spillway; the rest could not be written to disk (${reason})`;
    result._meta = { ...(result._meta as object | undefined), [CUT_META_KEY]: why };
  }
  return message;
}

/** The spaces JSON allows between tokens: space, tab, line feed, carriage return (JSON.parse refuses others). */
const isJsonSpace = (byte: number | undefined) => byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;

/**
 * Whether a line's first bytes may begin a JSON-RPC message: `{` then a key or `}`, with JSON's spaces
 * allowed, or a head that ends before either. Reads the bytes up to the one that decides, no further.
 */
export function mayBeMessage(head: Buffer): boolean {
  let at = 0;
  while (isJsonSpace(head[at])) at++;
  if (head[at] !== 0x7b /* { */) return false;
  at++;
  while (isJsonSpace(head[at])) at++;
  return at === head.length || head[at] === 0x22 /* " */ || head[at] === 0x7d; /* } */
}
