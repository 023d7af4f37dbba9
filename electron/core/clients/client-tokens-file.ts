/**
 * The text of client-tokens.json (the store is ClientTokens): `{ <client id>: <token>, …, "revoked":
 * { <client id>: [<sha256 of a token>, …] }, "seen": { <client id>: <ISO time>, … } }`. Keys this version
 * does not know are kept as read and written back (config-unknown-keys.ts, as config.json does), so what an
 * older or newer Spillway added survives a write here. A file that is not such an object (a hand edit's
 * trailing comma, a cut-short write) is never written over with fewer tokens: it is set aside first, as
 * tool-pins.json and the spill index are, and the user is told to connect the apps again.
 */
import { createHash } from 'node:crypto';
import { rename } from 'node:fs/promises';
import { findUnknownKeys, withUnknownKeys, type UnknownKey } from '../../../shared/config-unknown-keys.js';

/** The key of the revoked tokens' hashes in the file (no client has that id; older versions skip it, not being text). */
const REVOKED = 'revoked';
/** The key of the clients' last-seen times (ISO) in the file; older versions skip it, not being text. */
const SEEN = 'seen';
/** Revoked tokens remembered per client, the newest last. */
const KEEP_REVOKED = 10;

export const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export interface TokensFile {
  tokens: Map<string, string>;
  revoked: Map<string, string[]>;
  seen: Map<string, string>;
  /** What the file held that this version does not know, put back as it was at each write. */
  unknown: UnknownKey[];
}

/** Text that is not a tokens file, and why (the JSON parser's words). */
export interface DamagedFile {
  damaged: string;
}

/** A change this store made and has not written yet: a new token for a client, or one of its tokens revoked. */
export type Change = { id: string; token: string } | { id: string; revokedHash: string };

/** Puts one change of this store over what the file holds. */
export function applyChange(into: Pick<TokensFile, 'tokens' | 'revoked'>, change: Change): void {
  if ('token' in change) {
    into.tokens.set(change.id, change.token);
    return;
  }
  const current = into.tokens.get(change.id);
  // Only the token this store revoked goes: one another process wrote since stays.
  if (current !== undefined && hashOf(current) === change.revokedHash) into.tokens.delete(change.id);
  const hashes = into.revoked.get(change.id) ?? [];
  if (!hashes.includes(change.revokedHash)) into.revoked.set(change.id, [...hashes, change.revokedHash].slice(-KEEP_REVOKED));
}

/** Keeps the newer last-seen time of each client. */
export function mergeSeen(into: Map<string, string>, from: Map<string, string>): void {
  for (const [id, time] of from) {
    const other = into.get(id);
    if (other === undefined || Date.parse(time) > Date.parse(other)) into.set(id, time);
  }
}

/**
 * What the file's text holds: the tokens, the hashes of those it revoked, when clients were last seen and
 * the keys this version does not know. No text, or only blanks, holds nothing; text that is not a JSON
 * object is damaged. A leading BOM (Windows Notepad saves one) is read past.
 */
export function parseTokens(text: string | undefined): TokensFile | DamagedFile {
  const read: TokensFile = { tokens: new Map(), revoked: new Map(), seen: new Map(), unknown: [] };
  const json = text?.replace(/^\uFEFF/, '');
  if (json === undefined || json.trim() === '') return read;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (err) {
    if (err instanceof SyntaxError) return { damaged: err.message };
    throw err;
  }
  if (!isObject(parsed)) return { damaged: 'it holds no JSON object' };
  for (const [id, token] of Object.entries(parsed)) if (typeof token === 'string' && token.length >= 16) read.tokens.set(id, token);
  const gone = parsed[REVOKED];
  if (isObject(gone)) {
    for (const [id, hashes] of Object.entries(gone)) {
      if (Array.isArray(hashes))
        read.revoked.set(
          id,
          hashes.filter((h): h is string => typeof h === 'string'),
        );
    }
  }
  const times = parsed[SEEN];
  if (isObject(times)) {
    for (const [id, time] of Object.entries(times)) if (typeof time === 'string' && !Number.isNaN(Date.parse(time))) read.seen.set(id, time);
  }
  read.unknown = findUnknownKeys(parsed, contentOf(read));
  return read;
}

/** The parts of the file this version knows. */
function contentOf(file: TokensFile): Record<string, unknown> {
  const out: Record<string, unknown> = Object.fromEntries(file.tokens);
  if (file.revoked.size > 0) out[REVOKED] = Object.fromEntries(file.revoked);
  if (file.seen.size > 0) out[SEEN] = Object.fromEntries(file.seen);
  return out;
}

/** The file's text: what this version knows, with the keys it does not know put back (a known value wins). */
export function tokensText(file: TokensFile): string {
  return `${JSON.stringify(withUnknownKeys(contentOf(file), file.unknown).value, null, 2)}\n`;
}

/**
 * Renames a damaged file to `<file>.corrupt-<time>` (as tool-pins.json is), so that no write replaces the
 * tokens it may still hold; the copy keeps the file's owner-only mode. Call it holding the file's lock.
 * Returns the copy's path.
 */
export async function setAsideDamaged(file: string, now: number = Date.now()): Promise<string> {
  const aside = `${file}.corrupt-${now}`;
  await rename(file, aside);
  return aside;
}

/** The next step for apps refused since their tokens were set aside (app-hub.ts repairs its entries at each start). */
const NEXT_STEP =
  'Spillway gives the entries it wrote new tokens each time it starts (restart an app if it asks); connect any app ' +
  'still refused again: in Spillway, Clients → Connect (or Update), or `spillway clients connect <app>`.';

/** What the user is told when a store opens on a damaged file and sets it aside. */
export function setAsideAtOpen(reason: string, aside: string): string {
  return (
    `The client tokens file was unreadable (${reason}); moved it to ${aside} (it still holds the old tokens) and ` +
    `started without client tokens, so apps connected before are refused. ${NEXT_STEP}`
  );
}

/** What the user is told when a write finds the file damaged since it was read, and sets it aside. */
export function setAsideAtWrite(reason: string, aside: string): string {
  return (
    `The client tokens file was changed and became unreadable (${reason}); moved it to ${aside} and wrote back the ` +
    `tokens Spillway had read before, so an app connected after that read is refused. ${NEXT_STEP}`
  );
}

/** What the user is told when a damaged file cannot be set aside (a write over it is refused, see ClientTokens). */
export function notSetAside(reason: string, error: unknown): string {
  return (
    `The client tokens file is unreadable (${reason}) and could not be moved aside (${(error as Error).message}). ` +
    'Apps connected before are refused, and connecting an app fails, until you fix or remove the file; then ' +
    'connect the apps again: in Spillway, Clients → Connect (or Update).'
  );
}
