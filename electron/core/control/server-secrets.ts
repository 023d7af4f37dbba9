/**
 * A server's config as the control API shows it: every env and header value masked, whatever its key
 * (`GITHUB_PAT`, `X-Custom-Auth`: issue 13, item 12), and secret-shaped text in its other fields too
 * (`postgresql://alice:***@host/db` in its args, `api_key=***` in its address). The edit form and the on/off
 * switch get that masked config and send it back: restoreMaskedSecrets puts the stored values back in
 * every place the list masked, so config.json never ends up holding `***`.
 */
import type { ServerConfig } from '../../../shared/config.js';
import { SECRET_REF } from '../../../shared/config.js';
import { REDACTED, redactSecrets } from '../log/redact.js';
import { movedSecretRef } from '../secrets/server-secret-refs.js';
import { swapSecretParams, urlSecretValues } from '../secrets/url-secrets.js';
import { ControlError } from './control-error.js';

/** Every non-empty value of a map masked (an empty value stays empty: "not set" remains visible). */
function maskValues(map: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(map).map(([k, v]) => [k, v === '' ? v : REDACTED]));
}

/** A server's config as lists and answers show it: env and header values masked, secret-shaped text too. */
export function maskServerSecrets(config: ServerConfig): ServerConfig {
  const masked: ServerConfig =
    config.type === 'stdio'
      ? { ...config, env: maskValues(config.env) }
      : {
          ...config,
          headers: maskValues(config.headers),
          url: swapSecretParams(config.url, (_, value) => (value === '' || value === SECRET_REF ? undefined : REDACTED)),
        };
  return redactSecrets(masked);
}

/** Whether a value is a masked one as some list showed it (`***`, `••••`, `[redacted]`). */
const MASKED = /^•+$|^\*{3,}$|\[redacted\]/i;

/**
 * Env or header values sent back: a masked one keeps what was stored under its key. A masked value under
 * a new key is the renamed one's when exactly one stored key is gone (its value shown masked, the key
 * edited); any other masked value under a new key is refused, as it stands for no stored value.
 */
function restoreValues(next: Record<string, string>, stored: Record<string, string>, field: string): Record<string, string> {
  const added = Object.keys(next).filter((k) => MASKED.test(next[k]!) && !Object.hasOwn(stored, k));
  const gone = Object.keys(stored).filter((k) => stored[k] !== '' && !Object.hasOwn(next, k));
  if (added.length > 1 || (added.length === 1 && gone.length !== 1)) {
    const key = added[0]!;
    throw new ControlError(
      'invalid',
      `${key} shows a hidden value (${next[key]}) but no value is stored under that name: type its value.`,
      `${field}.${key}`,
    );
  }
  const renamed = (from: string) => (stored[from] === SECRET_REF ? movedSecretRef(from) : stored[from]!);
  return Object.fromEntries(
    Object.entries(next).map(([k, v]) => {
      if (!MASKED.test(v)) return [k, v];
      return [k, Object.hasOwn(stored, k) ? stored[k] : renamed(gone[0]!)];
    }),
  );
}

/**
 * Values the list showed masked and the user sent back unchanged keep what was stored; a value typed over
 * a mask is taken. Env and header values go by their key (or by the one key renamed: restoreValues); the
 * other text fields (command, args, cwd, address, label) by what the list showed of the stored config.
 * Throws a ControlError for a masked value that stands for nothing stored.
 */
export function restoreMaskedSecrets(next: ServerConfig, before: ServerConfig | undefined): ServerConfig {
  if (!before) return next;
  const shown = maskServerSecrets(before);
  const label = restoreOptional(next.label, shown.label, before.label);
  if (next.type === 'stdio' && before.type === 'stdio' && shown.type === 'stdio') {
    return {
      ...next,
      command: restoreText(next.command, shown.command, before.command),
      args: restoreArgs(next.args, shown.args, before.args),
      env: restoreValues(next.env, before.env, 'config.env'),
      ...(next.cwd === undefined ? {} : { cwd: restoreOptional(next.cwd, shown.cwd, before.cwd) }),
      ...(label === undefined ? {} : { label }),
    };
  }
  if (next.type !== 'stdio' && before.type !== 'stdio' && shown.type !== 'stdio') {
    // Credential parameters go by name too: `api_key=••••` typed by hand also keeps the stored key.
    const stored = urlSecretValues(before.url);
    const url = moveRenamedParam(
      swapSecretParams(restoreText(next.url, shown.url, before.url), (param, value) => (MASKED.test(value) ? stored.get(param) : undefined)),
      stored,
    );
    refuseUnstoredParams(url, stored);
    return { ...next, headers: restoreValues(next.headers, before.headers, 'config.headers'), url, ...(label === undefined ? {} : { label }) };
  }
  return next;
}

/** Whether a credential parameter sent back shows a hidden value, or refers to a stored one (`<secret>`), that its name holds none of. */
const unstoredParam = (param: string, value: string, stored: ReadonlyMap<string, string>) =>
  value === SECRET_REF ? stored.get(param) !== SECRET_REF : MASKED.test(value);

/**
 * A credential parameter renamed (`token=***` made `access_token=***`) keeps its key, as an env variable or
 * header renamed does (restoreValues): when exactly one parameter sent back stands for nothing stored under
 * its name and exactly one stored parameter is gone, the new one gets the gone one's value (a
 * movedSecretRef when it is in the store, which storeServerSecrets then stores under the new name).
 */
function moveRenamedParam(url: string, stored: ReadonlyMap<string, string>): string {
  const sent = urlSecretValues(url);
  const added = [...sent].filter(([param, value]) => unstoredParam(param, value, stored)).map(([param]) => param);
  const gone = [...stored.keys()].filter((name) => stored.get(name) !== '' && !sent.has(name));
  if (added.length !== 1 || gone.length !== 1) return url;
  const from = gone[0]!;
  const value = stored.get(from) === SECRET_REF ? movedSecretRef(from) : stored.get(from)!;
  return swapSecretParams(url, (param) => (param === added[0] ? value : undefined));
}

/**
 * A credential parameter of the address sent back that still shows a hidden value, or refers to a stored
 * one (`<secret>`) its name holds none of, stands for nothing stored under that name: refused, naming the
 * address, rather than saved without its key (a single one renamed was given its key: moveRenamedParam).
 */
function refuseUnstoredParams(url: string, stored: ReadonlyMap<string, string>): void {
  swapSecretParams(url, (param, value) => {
    if (!unstoredParam(param, value, stored)) return undefined;
    const gone = [...stored.keys()].filter((name) => stored.get(name) !== '' && !urlSecretValues(url).has(name));
    const renamed = gone.length === 1 ? ` The key is stored under ${gone[0]}: keep that name, or type the key in place of the hidden value.` : '';
    throw new ControlError(
      'invalid',
      `The URL's ${param} shows a hidden value but no key is stored under that name.${renamed || ' Type its value in the URL.'}`,
      'config.url',
    );
  });
}

function restoreOptional(next: string | undefined, shown: string | undefined, stored: string | undefined): string | undefined {
  return next === undefined || shown === undefined || stored === undefined ? next : restoreText(next, shown, stored);
}

/**
 * One text field sent back. As the list showed it, it is the stored text. Edited, each `***` left in it
 * stands for the stored secret the same text led up to in the list (`postgresql://alice:***@host/otherdb`
 * keeps alice's password); a `***` nothing leads up to stays as typed.
 */
function restoreText(next: string, shown: string, stored: string): string {
  if (next === shown) return stored;
  if (shown === stored || !next.includes(REDACTED)) return next;
  const secrets = maskedParts(shown, stored);
  if (!secrets) return next;
  const parts = next.split(REDACTED);
  let out = parts[0]!;
  for (let i = 1; i < parts.length; i++) out += (secretAfter(parts[i - 1]!, secrets) ?? REDACTED) + parts[i]!;
  return out;
}

interface MaskedPart {
  /** The text the list showed before this mask (since the previous one). */
  lead: string;
  /** The stored text the mask stands for. */
  secret: string;
}

/** What each `***` of a listed text stands for in the stored one; undefined when they do not line up. */
function maskedParts(shown: string, stored: string): MaskedPart[] | undefined {
  const literals = shown.split(REDACTED);
  if (!stored.startsWith(literals[0]!)) return undefined;
  let at = literals[0]!.length;
  const parts: MaskedPart[] = [];
  for (let i = 1; i < literals.length; i++) {
    const literal = literals[i]!;
    // A masked value ends where the listed text goes on (the mask never swallows that text), the last one
    // where the text ends with the listed tail.
    let end: number;
    if (i < literals.length - 1) end = literal === '' ? -1 : stored.indexOf(literal, at + 1);
    else end = stored.endsWith(literal) && stored.length - literal.length > at ? stored.length - literal.length : -1;
    if (end < 0) return undefined;
    parts.push({ lead: literals[i - 1]!, secret: stored.slice(at, end) });
    at = end + literal.length;
  }
  return parts;
}

/** How many characters two texts share at their starts. */
function sharedStart(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

/** How many characters two texts share at their ends. */
function sharedEnd(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
  return n;
}

/** The secret whose listed lead ends most like `lead` (an identical lead best); undefined when none does or two differ. */
function secretAfter(lead: string, parts: MaskedPart[]): string | undefined {
  const score = (p: MaskedPart) => (p.lead === lead ? lead.length + 1 : sharedEnd(lead, p.lead));
  const top = Math.max(0, ...parts.map(score));
  const secrets = new Set(parts.filter((p) => score(p) === top).map((p) => p.secret));
  return top > 0 && secrets.size === 1 ? [...secrets][0] : undefined;
}

/**
 * Command-line words sent back. A masked word is matched to the listed one it came from: the same word (by
 * the word before it too, when several read the same: `--api-key ***`, `--password ***`), else, for an
 * edited word, the masked one it starts most like; so adding or removing other words keeps the secrets.
 */
function restoreArgs(next: string[], shown: string[], stored: string[]): string[] {
  if (shown.length !== stored.length) return next;
  const masked = shown.flatMap((word, j) => (word !== stored[j] ? [j] : []));
  const one = (list: number[]) => (list.length === 1 ? list[0] : undefined);
  return next.map((arg, i) => {
    if (!arg.includes(REDACTED)) return arg;
    const same = masked.filter((j) => shown[j] === arg);
    let from: number | undefined;
    if (same.length > 0) {
      from = one(same) ?? one(same.filter((j) => j > 0 && i > 0 && shown[j - 1] === next[i - 1])) ?? one(same.filter((j) => j === i));
    } else {
      const start = (j: number) => sharedStart(arg, shown[j]!);
      const top = Math.max(0, ...masked.map(start));
      const closest = masked.filter((j) => start(j) === top);
      from = top === 0 ? undefined : (one(closest) ?? one(closest.filter((j) => j === i)));
    }
    return from === undefined ? arg : restoreText(arg, shown[from]!, stored[from]!);
  });
}
