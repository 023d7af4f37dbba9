/**
 * How a long value is laid out in the keychain. Windows Credential Manager keeps at most 2560 bytes per
 * entry, stored as UTF-16: 1280 characters (keyring-rs refuses more, "longer than platform limit"). A
 * sign-in's tokens (a JWT access token and id token) or a long `Authorization` header pass that easily.
 * So a value longer than PART_CHARS is stored in parts: a head entry under the value's own name that
 * records how many parts there are and a hash of the whole, then entries `name#1`, `name#2`… Shorter
 * values stay one plain entry, as every value saved before parts existed is. The layout is the same on
 * every platform, so the one tested on Linux and macOS is the one Windows runs.
 */
import { createHash } from 'node:crypto';

/** Characters per part: the head's prefix on top still stays well under Windows' 1280. */
export const PART_CHARS = 1000;

const MARK = 'spillway-parts:';
const HEAD = /^spillway-parts:(\d+):([0-9a-f]{16}):/;

/** The keychain account of a value's part `index` (1, 2…); the head is under the value's own account. */
export const partAccount = (account: string, index: number) => `${account}#${index}`;

const digest = (value: string) => createHash('sha256').update(value).digest('hex').slice(0, 16);

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** The entries that hold a value: the head first, then parts 1, 2… (one plain entry for a short value). */
export function splitValue(value: string): string[] {
  // A short value that itself starts like a head is stored as a head too, so reading it back is unambiguous.
  if (value.length <= PART_CHARS && !value.startsWith(MARK)) return [value];
  const pieces: string[] = [];
  for (let at = 0; at < value.length;) {
    let end = Math.min(at + PART_CHARS, value.length);
    // Each part reaches the OS as text on its own: half an emoji would come back as U+FFFD.
    if (end < value.length && isHighSurrogate(value.charCodeAt(end - 1))) end--;
    pieces.push(value.slice(at, end));
    at = end;
  }
  pieces[0] = `${MARK}${pieces.length}:${digest(value)}:${pieces[0]}`;
  return pieces;
}

/** How many entries the value whose head entry holds this has (1 for a plain value or none). */
export function entryCount(head: string | null | undefined): number {
  const match = head ? HEAD.exec(head) : null;
  return match ? Math.max(1, Number(match[1])) : 1;
}

/**
 * The value of a head entry and its parts 1, 2… (`readPart` fetches one), or `undefined` when the parts
 * do not make up the value the head was written with: Spillway stopped while saving a new value, between
 * writing its parts and its head.
 */
export async function joinValue(head: string, readPart: (index: number) => Promise<string | undefined>): Promise<string | undefined> {
  const match = HEAD.exec(head);
  if (!match) return head;
  let value = head.slice(match[0].length);
  for (let index = 1; index < Number(match[1]); index++) {
    const part = await readPart(index);
    if (part === undefined) return undefined;
    value += part;
  }
  return digest(value) === match[2] ? value : undefined;
}
