/**
 * Masking by value (issue 13, item 12): every configured env and header value, the compression API key,
 * the access token and the client tokens are secrets whatever key they sit under (`GITHUB_PAT`,
 * `X-Custom-Auth`), so wherever one of them shows up in text — a server echoing its env to stderr, an
 * error quoting a header — it becomes `***`. Sources are read when text is masked and the list is
 * rebuilt only when a source's snapshot changed, so a config change applies to the very next event.
 */
import type { Config, ServerConfig } from '../../../shared/config.js';
import { REDACTED } from './redact.js';

/**
 * Values shorter than this are not masked. Env values such as `true`, `debug`, `info` or `8080` would
 * otherwise turn every occurrence of that word in logs into `***` (and masking a secret that short in
 * text would not protect it anyway: it is guessable).
 */
export const MIN_SECRET_CHARS = 6;

/**
 * A secret known to be one (a tool policy's hidden secret: a PIN, a short key), masked from this length
 * when it stands as a whole word (see WordSecret); a plain value of that length is not masked at all.
 */
export const MIN_WORD_SECRET_CHARS = 4;

/**
 * A known secret, masked down to MIN_WORD_SECRET_CHARS; shorter than MIN_SECRET_CHARS only where it
 * stands as a whole word (no letter, digit, `_` or `-` touches it): `4711` is not masked in `947112`.
 */
export interface WordSecret {
  word: string;
}

/** A value to mask: a text (masked wherever it appears, from MIN_SECRET_CHARS) or a WordSecret. */
export type SecretText = string | WordSecret;

/** One place a value occurs in a text, and what replaces it there. */
export interface ValueOccurrence {
  index: number;
  length: number;
  replacement: string;
}

/** Masks the known secret values in one text; taken once per event or answer (see SecretValues.snapshot). */
export interface ValueMask {
  mask(text: string): string;
  /** Where the values occur in `text` (what `mask` replaces), in order; valueReplacer's masks have it. */
  find?(text: string): ValueOccurrence[];
}

interface Source<T> {
  read: () => T;
  values: (snapshot: T) => Iterable<SecretText>;
  /** The snapshot `list` was built from (compared with `===`: config objects are replaced, never mutated). */
  last: T | typeof UNREAD;
  list: readonly SecretText[];
}

const UNREAD = Symbol('unread');
const NO_VALUES: ValueMask = { mask: (text) => text };

export class SecretValues {
  readonly #sources = new Map<string, Source<unknown>>();
  #mask: ValueMask = NO_VALUES;
  #stale = false;

  /**
   * Keeps the values `values(read())` masked, under `name` (a second call with the same name replaces the
   * first). `read` must return a new snapshot (a new object, or a different string) whenever the values
   * change.
   */
  track<T>(name: string, read: () => T, values: (snapshot: T) => Iterable<SecretText>): void {
    const source: Source<T> = { read, values, last: UNREAD, list: [] };
    this.#sources.set(name, source as Source<unknown>);
    this.#stale = true;
  }

  /** The masker for the values as they are now. */
  snapshot(): ValueMask {
    for (const source of this.#sources.values()) {
      const now = source.read();
      if (now === source.last) continue;
      source.last = now;
      source.list = [...source.values(now)];
      this.#stale = true;
    }
    if (this.#stale) {
      this.#stale = false;
      this.#mask = valueMask([...this.#sources.values()].flatMap((s) => s.list));
    }
    return this.#mask;
  }

  /** Masks the known secret values in one text. */
  mask(text: string): string {
    return this.snapshot().mask(text);
  }
}

/**
 * A masker for a fixed list of values (e.g. a config being tested, not saved): each becomes `***`
 * wherever it appears (see valueReplacer for the forms it is found in); a WordSecret only as a whole word.
 */
export function valueMask(values: Iterable<SecretText>): ValueMask {
  const pairs: [string, string, boolean][] = [];
  for (const value of values) {
    if (typeof value === 'string') {
      if (value.trim().length >= MIN_SECRET_CHARS) pairs.push([value, REDACTED, false]);
    } else if (value.word.trim().length >= MIN_WORD_SECRET_CHARS) pairs.push([value.word, REDACTED, value.word.length < MIN_SECRET_CHARS]);
  }
  return valueReplacer(pairs, MIN_WORD_SECRET_CHARS) ?? NO_VALUES;
}

/**
 * A masker that replaces each value by its own replacement (the log's `***`, a call's `[hidden: name]`);
 * undefined when no value is at least `minChars` long (nothing to replace: callers skip the work). Each
 * value is also matched as it appears inside JSON text (quotes and backslashes escaped, replaced by its
 * replacement escaped alike), encoded for a web address (encodeURIComponent) and in base64 (a server
 * printing its credentials encoded, as in a Basic header). The first value given wins when two are the
 * same. A value shorter than `wholeTokenBelow` (0: none), or whose pair says so, is replaced, in each of its forms, only where
 * it stands as a whole token: not preceded or followed by a letter, digit, `_` or `-`. Text is replaced
 * in one pass, the longest value first where several start at the same place (a secret that contains
 * another is masked whole), so a replacement is never searched again. The pattern is the escaped values
 * as alternatives, each guarded at most by a one-character look on either side: no nested repetition,
 * so no catastrophic backtracking.
 */
export function valueReplacer(
  pairs: Iterable<readonly [value: string, replacement: string, wholeToken?: boolean]>,
  minChars: number,
  wholeTokenBelow = 0,
): ValueMask | undefined {
  const forms = new Map<string, { replacement: string; whole: boolean }>();
  const add = (form: string, replacement: string, whole: boolean) => {
    if (form !== '' && !forms.has(form)) forms.set(form, { replacement, whole });
  };
  for (const [value, replacement, wholeToken] of pairs) {
    if (value.trim().length < minChars) continue;
    const whole = wholeToken === true || value.length < wholeTokenBelow;
    add(value, replacement, whole);
    add(JSON.stringify(value).slice(1, -1), JSON.stringify(replacement).slice(1, -1), whole);
    add(encodeURIComponent(value), replacement, whole);
    // Without its `=` padding, so it is found whether the server printed it padded or not.
    add(Buffer.from(value).toString('base64').replace(/=+$/, ''), replacement, whole);
  }
  if (forms.size === 0) return undefined;
  const sorted = [...forms.keys()].sort((a, b) => b.length - a.length);
  const shortest = sorted[sorted.length - 1].length;
  let built: RegExp | undefined;
  const pattern = () => (built ??= new RegExp(sorted.map((form) => alternative(form, forms.get(form)!.whole)).join('|'), 'gu'));
  // Most texts hold none of the values: as cheap as before (one search per form), no regex run.
  const holdsAny = (text: string) => text.length >= shortest && sorted.some((form) => text.includes(form));
  return {
    mask(text: string): string {
      if (!holdsAny(text)) return text;
      return text.replace(pattern(), (found) => forms.get(found)?.replacement ?? found);
    },
    find(text: string): ValueOccurrence[] {
      if (!holdsAny(text)) return [];
      const out: ValueOccurrence[] = [];
      for (const m of text.matchAll(pattern())) out.push({ index: m.index, length: m[0].length, replacement: forms.get(m[0])?.replacement ?? m[0] });
      return out;
    },
  };
}

/** A character that continues a token: a letter, a digit, `_` or `-`. */
const TOKEN_CHAR = '[\\p{L}\\p{N}_-]';

/**
 * An escape that stands for a separator where a value is written inside JSON text (`\n`, `\t`, `\u00a0`)
 * or a web address (`%20`, `%3A`): its last character is a letter or digit, but the word starts after it.
 */
const ESCAPE_BEFORE = '\\\\[bfnrt]|\\\\u[0-9A-Fa-f]{4}|%[0-9A-Fa-f]{2}';

/**
 * One value's alternative in the pattern: the value itself, or only where no token character touches it
 * (an escaped separator just before it counts as none: `PIN:\n4711` in a JSON log line is masked).
 */
function alternative(form: string, whole: boolean): string {
  const escaped = escapeRegExp(form);
  return whole ? `(?:(?<!${TOKEN_CHAR})|(?<=${ESCAPE_BEFORE}))${escaped}(?!${TOKEN_CHAR})` : escaped;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

const AUTH_SCHEME_VALUE = /^(?:Bearer|Basic|Token)[ \t]+(\S+)$/i;

/**
 * The secret values of one server: every env value (stdio) or header value (HTTP, SSE), whatever its key.
 * A header such as `Bearer xyz` also gives `xyz`, which is what a server echoing its credentials prints.
 */
export function serverSecretValues(server: ServerConfig): string[] {
  const out: string[] = [];
  const map = server.type === 'stdio' ? server.env : server.headers;
  for (const value of Object.values(map ?? {})) {
    out.push(value);
    const credential = AUTH_SCHEME_VALUE.exec(value.trim())?.[1];
    if (credential) out.push(credential);
  }
  return out;
}

/** The secret values of a config: those of every server, and the compression API key. */
export function configSecretValues(config: Config): string[] {
  const out = Object.values(config.servers).flatMap(serverSecretValues);
  const apiKey = config.settings.compression.apiKey;
  if (apiKey) out.push(apiKey);
  return out;
}
