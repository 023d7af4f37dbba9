/**
 * Masks secrets before anything is persisted, listed or exported (DESIGN.md, "Non-negotiables").
 * Passes: values under sensitive keys (at any depth), the known secret values wherever they appear
 * (secret-values.ts, when a mask is given), and secret-shaped text inside strings (`Bearer xxx`,
 * `api_key=xxx`, `"password": "xxx"`, `https://user:pass@host`, `--api-key xxx`, `?key=xxx` in an
 * address, credentials of a well-known shape such as `sk-…` or `ghp_…` anywhere, and in a list of
 * command-line words the one after `--password`). Prose that merely names a secret
 * ("the token budget", "basic setup") is left alone (issue 13, item 12).
 */
import type { ValueMask } from './secret-values.js';

/** What a masked value becomes. Exported so a UI round-trip can recognise an unchanged masked value. */
export const REDACTED = '***';

/** Keys (lower-cased, with everything but letters and digits removed) that are secret whatever their prefix. */
const SENSITIVE_EXACT = new Set(['auth', 'authorization', 'proxyauthorization', 'cookie', 'setcookie', 'pwd']);

/**
 * Suffixes that make a key secret: `GITHUB_TOKEN`, `x-api-key`, `client_secret`, `DB_PASSWORD`.
 * `token` is a suffix only, so counters such as `tokensUpstream` or `maxTokens` stay readable.
 */
const SENSITIVE_SUFFIXES = [
  'token',
  'apikey',
  'secret',
  'password',
  'passwd',
  'passphrase',
  'authorization',
  'cookie',
  'privatekey',
  'credentials',
  'credential',
];

/** Fragments that make a key secret wherever they appear (`AWS_SECRET_ACCESS_KEY`, `passwordHash`). */
const SENSITIVE_PARTS = ['secret', 'password', 'passwd', 'apikey'];

/** Keys seen so far and whether they are sensitive: events repeat the same few dozen keys. */
const keyVerdicts = new Map<string, boolean>();
const MAX_REMEMBERED_KEYS = 4096;

/** True when a key's value should never be shown (`Authorization`, `OPENAI_API_KEY`, `refresh_token`, ...). */
export function isSensitiveKey(key: string): boolean {
  let verdict = keyVerdicts.get(key);
  if (verdict === undefined) {
    verdict = judgeKey(key);
    if (keyVerdicts.size >= MAX_REMEMBERED_KEYS) keyVerdicts.clear();
    keyVerdicts.set(key, verdict);
  }
  return verdict;
}

function judgeKey(key: string): boolean {
  const k = key.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (k === '') return false;
  if (SENSITIVE_EXACT.has(k)) return true;
  if (SENSITIVE_SUFFIXES.some((s) => k.endsWith(s))) return true;
  return SENSITIVE_PARTS.some((p) => k.includes(p));
}

// Every quantifier below is bounded and keys must start at a word boundary, so scanning stays linear in
// the string's length: a 300 KB stderr line of one repeated character must not take minutes.
// `Bearer abc.def`, `Basic dXNlcjpw`, also after `Authorization:` inside log lines. What follows the word
// is masked only when it looks like a credential (credentialShaped) or sits in an Authorization value.
const AUTH_SCHEME = /\b(Bearer|Basic|Token)([ \t]{1,8})([A-Za-z0-9\-._~+/=:]{4,4096})/gi;
// An auth scheme word that is the value of an Authorization header or field: whatever follows is the credential.
const AFTER_AUTHORIZATION = /authorization["']?[ \t]{0,8}[:=][ \t]{0,8}["']?$/i;
// `key=value`, `key: value`, `"key": "value"`, `'key': 'value'`, `--key=value`; the key is judged by
// isSensitiveKey. Not a key: a URL's scheme (`https:` before `//`), a word right after `://` (a URL's user
// name: URL_USERINFO masks its password), a key whose value is a URL (its parameters and password are
// masked on their own, so the scan goes on into it instead of passing over it).
const KEY_VALUE =
  /(?<![A-Za-z0-9_.-]|:\/\/)(["']?)(-{0,2}[A-Za-z_][A-Za-z0-9_.-]{0,63})\1([ \t]{0,8}[:=][ \t]{0,8})(?!\/\/|["']?[A-Za-z][A-Za-z0-9+.-]{0,31}:\/\/)("(?:[^"\\\n]|\\.){0,4096}"|'[^'\n]{0,4096}'|[^\s&,;"'}\])]{1,4096})/g;
// A command-line option and its value: `--password hunter2`, `--api-key sk-…` (not another option).
// A `$NAME` or `${NAME}` after the option is a reference to a value kept elsewhere, not the value: it stays.
const OPTION_VALUE = /(?<![A-Za-z0-9_./-])(--?[A-Za-z][A-Za-z0-9_.-]{0,63})([ \t]{1,8})([^\s&,;"'}\])$-][^\s&,;"'}\])]{0,4095})/g;
/** A command-line word that is an option's name alone (`--api-key`, `-password`), its value the next word. */
const OPTION_WORD = /^--?[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
// Credentials in a URL's userinfo.
const URL_USERINFO = /(?<![A-Za-z0-9+.-])([a-z][a-z0-9+.-]{0,31}:\/\/[^\s/:@]{1,256}:)([^\s/@]{1,256})(@)/gi;
// Credentials whose own shape says what they are, wherever they stand (`-k sk-…`, a pasted key in prose):
// OpenAI and Anthropic keys, GitHub, GitLab and Slack tokens, AWS access key ids, Google API keys.
const KNOWN_TOKEN =
  /(?<![A-Za-z0-9_-])(?:sk-(?:proj-|ant-|svcacct-)?[A-Za-z0-9_-]{20,512}|gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{22,255}|glpat-[A-Za-z0-9_-]{20,255}|xox[abposr]-[A-Za-z0-9-]{10,255}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35})(?![A-Za-z0-9_-])/g;
const KNOWN_TOKEN_HINT = /sk-|gh[pousr]_|github_pat_|glpat-|xox[abposr]-|AKIA|AIza/;
// A web address's parameter named only `key`, `sig` or `signature` (`?key=…`, `&sig=…`): a credential there,
// though `key: name` elsewhere is not.
const URL_PARAM_KEYS = new Set(['key', 'sig', 'signature', 'code']);
// Strings shorter than this cannot hold `k=v` with a value worth masking; skip the regexes for them.
const MIN_SCAN_LENGTH = 6;
// Cheap tests that rule a pass out before its regex scans the string (most event strings are ids and names).
const AUTH_SCHEME_WORD = /bearer|basic|token/i;

/**
 * Whether the word after `Bearer`/`Basic`/`Token` is a credential rather than prose ("token budget",
 * "basic setup", "bearer token", "token 2048 of 4096"): it mixes letters and digits, has a capital inside
 * it, a `.`, `/`, `+`, `:`, `~` or `=` between characters or `=` at the end (base64 padding), or is too
 * long for a word.
 */
function credentialShaped(word: string): boolean {
  // Separate tests, each linear in the word's length (one alternation with `[^\d]*` would be quadratic).
  if (word.length >= 24 || word.endsWith('=')) return true;
  if (/\d/.test(word) && /[A-Za-z]/.test(word)) return true;
  return /[a-z][A-Z]|[A-Za-z0-9][./+=:~][A-Za-z0-9]/.test(word);
}

/** Whether a text holds a credential whose own shape says what it is (an OpenAI key, a GitHub token, ...). */
export function hasKnownTokenShape(text: string): boolean {
  if (text.length < 14 || !KNOWN_TOKEN_HINT.test(text)) return false;
  KNOWN_TOKEN.lastIndex = 0;
  return KNOWN_TOKEN.test(text);
}

/** Masks secret-shaped text inside one string, and the known secret values when a mask is given. */
export function redactText(text: string, values?: ValueMask): string {
  if (values) text = values.mask(text);
  if (text.length < MIN_SCAN_LENGTH) return text;
  if (text.length >= 14 && KNOWN_TOKEN_HINT.test(text)) text = text.replace(KNOWN_TOKEN, REDACTED);
  // KEY_VALUE needs a ':' or '=', URL_USERINFO a '://'; AUTH_SCHEME one of its words, OPTION_VALUE a '-';
  // both of these a space or tab after their word (ids such as a call's UUID have none: no scan).
  const separated = text.includes(':') || text.includes('=');
  const blank = text.includes(' ') || text.includes('\t');
  const scheme = blank && AUTH_SCHEME_WORD.test(text);
  const option = blank && text.includes('-');
  if (!separated && !scheme && !option) return text;
  let out = scheme
    ? text.replace(AUTH_SCHEME, (match, word: string, space: string, value: string, offset: number) =>
        credentialShaped(value) || AFTER_AUTHORIZATION.test(text.slice(Math.max(0, offset - 40), offset)) ? `${word}${space}${REDACTED}` : match,
      )
    : text;
  if (option)
    out = out.replace(OPTION_VALUE, (match, option: string, space: string, value: string) =>
      isSensitiveKey(option) && value !== REDACTED ? `${option}${space}${REDACTED}` : match,
    );
  if (!separated) return out;
  out = out.replace(KEY_VALUE, (match, quote: string, key: string, sep: string, value: string, offset: number, whole: string) => {
    const inAddress = sep === '=' && (whole[offset - 1] === '?' || whole[offset - 1] === '&') && URL_PARAM_KEYS.has(key.toLowerCase());
    if (!inAddress && !isSensitiveKey(key)) return match;
    if (value === REDACTED || value === `"${REDACTED}"` || value === `'${REDACTED}'`) return match;
    // An auth scheme word (already masked above) keeps its name: `Authorization: Bearer ***`.
    if (/^(Bearer|Basic|Token)$/i.test(value)) return match;
    const q = value.startsWith('"') ? '"' : value.startsWith("'") ? "'" : '';
    return `${quote}${key}${quote}${sep}${q}${REDACTED}${q}`;
  });
  if (out.includes('://')) out = out.replace(URL_USERINFO, (_m, before: string, _pass: string, at: string) => `${before}${REDACTED}${at}`);
  return out;
}

const MAX_DEPTH = 64;

/**
 * Returns a copy of a JSON-like value with secrets masked: any non-object value under a sensitive key
 * becomes `***` (empty strings stay empty, so "not set" remains visible), and every string is scanned
 * for secret-shaped text. Objects that are not plain (Dates, Buffers, class instances) are returned as-is.
 */
export function redactSecrets<T>(value: T, values?: ValueMask): T {
  return redactValue(value, 0, values) as T;
}

function redactValue(value: unknown, depth: number, values: ValueMask | undefined): unknown {
  if (typeof value === 'string') return redactText(value, values);
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item, i) => (optionValue(value, i) ? REDACTED : redactValue(item, depth + 1, values)));
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  const source = value as Record<string, unknown>;
  for (const key in source) {
    if (Object.hasOwn(source, key)) out[key] = redactEntry(key, source[key], depth + 1, values);
  }
  return out;
}

/**
 * Whether a command-line word holds a secret, as lists and logs would mask it: the value of a secret
 * option (the word itself, `--api-key=…`, or the word after `--api-key`), a password in an address, a
 * credential of a well-known shape, `NAME_TOKEN=…`. A `${NAME}` reference is not a secret.
 */
export function secretWordAt(args: readonly string[], i: number): boolean {
  const word = args[i];
  if (word === undefined || word === '' || /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(word)) return false;
  return optionValue(args, i) || redactText(word) !== word;
}

/** Whether an array's item is the value of a secret option in the item before (`["--api-key", "sk-…"]`). */
function optionValue(list: readonly unknown[], i: number): boolean {
  const item = list[i];
  const option = list[i - 1];
  return (
    typeof item === 'string' &&
    item !== '' &&
    !item.startsWith('-') &&
    !item.startsWith('$') &&
    typeof option === 'string' &&
    OPTION_WORD.test(option) &&
    isSensitiveKey(option)
  );
}

/** One property of an object being copied: masked whole under a sensitive key, else redacted within. */
function redactEntry(key: string, item: unknown, depth: number, values: ValueMask | undefined): unknown {
  if (isSensitiveKey(key) && item !== undefined && item !== null && item !== '' && (typeof item !== 'object' || Array.isArray(item))) {
    return REDACTED;
  }
  return redactValue(item, depth, values);
}

/**
 * Copies the properties of `source` onto `target` with secrets masked, as redactSecrets would copy
 * them, skipping `skip` (the event log adds its own fields without copying the event twice). Values
 * under `plainKeys` (ids and enums: an event's type, level, server) are not value-masked: a server id
 * that happens to equal a configured value must stay filterable.
 */
export function copyRedacted(
  target: Record<string, unknown>,
  source: object,
  skip: string,
  values?: ValueMask,
  plainKeys?: ReadonlySet<string>,
): void {
  const from = source as Record<string, unknown>;
  for (const key in from) {
    if (key !== skip && Object.hasOwn(from, key)) target[key] = redactEntry(key, from[key], 1, plainKeys?.has(key) ? undefined : values);
  }
}
