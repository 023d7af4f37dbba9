/**
 * The parts of a secret a server may print on their own. The store keeps whole values and whole
 * command-line words (`Bearer xyz`, `--token=xyz`, `postgres://u:pw@host/db`, `TFE_TOKEN=xyz` from a
 * catalog entry); a server echoing its credentials prints `xyz` or `pw` alone, or URL-decoded. Each such
 * part is masked as a known value too (secret-values.ts drops those shorter than MIN_SECRET_CHARS, so a
 * short word such as `true` or `8080` is not masked everywhere).
 */
import type { ServerConfig } from '../../../shared/config.js';
import { isSensitiveKey } from '../log/redact.js';
import { serverSecretValues } from '../log/secret-values.js';
import { secretArgsToEnv } from './server-secret-refs.js';
import { urlSecretValues } from './url-secrets.js';

// `NAME=value`, `--name=value`: the whole word is an assignment, so everything after `=` is the value.
const ASSIGNMENT = /^-{0,2}[A-Za-z_][A-Za-z0-9_.-]{0,63}=([\s\S]+)$/;
// `X-Api-Key: value` (a header written as one word, as `--header` takes it); not an address's `scheme://`.
const HEADER_LINE = /^[A-Za-z][A-Za-z0-9_-]{0,63}:[ \t]*(?!\/\/)(\S[\s\S]*)$/;
// The credential after an auth scheme word, wherever it stands (`Authorization: Bearer xyz`).
const AUTH_CREDENTIAL = /(?<![A-Za-z0-9_-])(Bearer|Basic|Token)[ \t]{1,8}([^\s"',;]{1,4096})/gi;
// An address, for its password (`://user:pw@`) and its credential parameters (`?api_key=`).
const ADDRESS = /[a-z][a-z0-9+.-]{0,31}:\/\/[^\s"'<>]{1,4096}/gi;
const USERINFO_PASSWORD = /^[a-z][a-z0-9+.-]{0,31}:\/\/[^\s/:@]{1,256}:([^\s/@]{1,256})@/i;
// `password=pw` among other settings (`host=db user=app password=pw`, a libpq connection string).
const KEY_VALUE = /(?<![A-Za-z0-9_.-])([A-Za-z_][A-Za-z0-9_.-]{0,63})=([^\s;&,"']{1,4096})/g;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The `user:password` a Basic credential encodes, when it is one. */
function basicPair(credential: string): string | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(credential)) return undefined;
  const text = Buffer.from(credential, 'base64').toString('utf8');
  return text.includes(':') && !/[\p{Cc}\ufffd]/u.test(text) ? text : undefined;
}

/** A lowercase word of a few letters (`postgres`, `password`, `admin`): a word of the language as much as a secret. */
const PLAIN_WORD = /^[a-z]{1,9}$/;

/**
 * Whether `part` can be masked on its own without masking what is not secret: not a plain word, and not
 * also standing elsewhere in the value (`postgres://postgres:postgres@…/postgres`: the password is the
 * user and database name too, which servers print as a matter of course). The whole value stays masked.
 */
function ownWord(part: string, value: string): boolean {
  if (PLAIN_WORD.test(part)) return false;
  const first = value.indexOf(part);
  return first === -1 || value.indexOf(part, first + 1) === -1;
}

/**
 * The parts of one secret value that are secrets on their own: the value of an assignment word or of a
 * header line, the credential after `Bearer`/`Basic`/`Token` (and the password a Basic one encodes), the
 * password and credential parameters of an address, the value of a setting named like a secret. Each
 * part's own parts are found too (`DATABASE_URL=postgres://u:pw@h/db` gives the address and `pw`).
 */
export function secretPartsWithin(value: string): string[] {
  const parts = new Set<string>();
  const visit = (text: string, depth: number) => {
    const add = (part: string | undefined) => {
      const found = part?.trim();
      if (!found || found === text || parts.has(found)) return;
      if (!ownWord(found, value)) return;
      parts.add(found);
      const plain = decoded(found);
      if (plain !== found && ownWord(plain, value)) parts.add(plain);
      if (depth < 3) visit(found, depth + 1);
    };
    add(ASSIGNMENT.exec(text)?.[1]);
    add(HEADER_LINE.exec(text)?.[1]);
    for (const [, scheme, credential] of text.matchAll(AUTH_CREDENTIAL)) {
      add(credential);
      const pair = scheme!.toLowerCase() === 'basic' ? basicPair(credential!) : undefined;
      if (pair) add(pair.slice(pair.indexOf(':') + 1));
    }
    for (const [address] of text.matchAll(ADDRESS)) {
      add(USERINFO_PASSWORD.exec(address)?.[1]);
      for (const param of urlSecretValues(address).values()) add(param);
    }
    for (const [, key, setting] of text.matchAll(KEY_VALUE)) if (isSensitiveKey(key!)) add(setting);
  };
  visit(value, 0);
  return [...parts];
}

/**
 * The secret values of a server config not saved yet (a Test of the edit form): its env and header values,
 * its secret command-line words, the credentials in its address, and the parts of each.
 */
export function unsavedSecretValues(cfg: ServerConfig): string[] {
  const values = serverSecretValues(secretArgsToEnv(cfg));
  const parts = values.flatMap(secretPartsWithin);
  if (cfg.type !== 'stdio') parts.push(...secretPartsWithin(cfg.url));
  return [...values, ...parts];
}
