import { parse, stringify, TomlError } from 'smol-toml';
import { ConfigParseError, ConfigShapeError } from './config-errors.js';

/*
 * Edits of one table (`[mcp_servers.spillway]`) in a TOML file (Codex's config.toml).
 *
 * A TOML library round trip (parse, edit, stringify) drops comments and reflows the file. So we
 * first try a text edit: replace or append our own table's lines only, then parse the result and
 * check it equals the intended document. Our entry may also be keys in another table
 * (`spillway = { ... }` under `[mcp_servers]`, or dotted keys): those lines are replaced or removed the same
 * way. When that check fails (an unusual layout: the servers table inline, `mcp_servers = { ... }`, our
 * entry split in pieces), we fall back to smol-toml's stringify of the whole
 * document and report `rewritten: true` so the consent text can say what that changes: comments
 * are lost, and values keep their meaning but not their notation (`1.0` becomes `1`, `0xff`
 * becomes `255`, a multi-line string one line with `\n`, a time gains `.000`).
 */

/** Integers beyond 2^53 are valid TOML (64-bit): read as BigInt rather than refused as unreadable. */
const PARSE_OPTIONS = { integersAsBigInt: 'asNeeded' } as const;

export interface TomlEditResult {
  text: string;
  /** True when the whole file was re-serialized (comments, formatting and value notation in it are lost). */
  rewritten: boolean;
}

/** The file's value as plain data. Throws ConfigParseError naming the line and column. */
export function parseTomlObject(text: string, file: string): Record<string, unknown> {
  try {
    return parse(text, PARSE_OPTIONS) as Record<string, unknown>;
  } catch (e) {
    if (e instanceof TomlError) {
      const reason = e.message.split('\n')[0].replace(/^Invalid TOML document:\s*/, '');
      // smol-toml's reasons read as words already ("illegal character in key").
      throw new ConfigParseError(file, `${reason}, so it is not valid TOML`, e.line, e.column);
    }
    throw e;
  }
}

/** JSON with sorted keys: equality of two TOML documents regardless of key order and prototypes. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v === 'bigint') return `${v}n`;
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, (v as Record<string, unknown>)[k]]),
      );
    }
    return v;
  });
}

function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : stringify({ k: key }).slice('k = '.length).trim();
}

function tomlValue(value: unknown): string {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const parts = Object.entries(value).map(([k, v]) => `${tomlKey(k)} = ${tomlValue(v)}`);
    return parts.length === 0 ? '{}' : `{ ${parts.join(', ')} }`;
  }
  return stringify({ v: value }).trim().slice('v = '.length);
}

/** `[a.b]` then one `key = value` line per field; nested tables (env, headers) inline, as Codex's docs write them. */
export function tomlTableText(path: string[], value: Record<string, unknown>, eol: string): string {
  const lines = [`[${path.map(tomlKey).join('.')}]`];
  for (const [k, v] of Object.entries(value)) {
    if (v !== undefined) lines.push(`${tomlKey(k)} = ${tomlValue(v)}`);
  }
  return lines.join(eol);
}

function splitKeyPath(raw: string): string[] {
  const parts: string[] = [];
  const re = /\s*("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)\s*(\.|$)/gy;
  let m: RegExpExecArray | null;
  while ((m = re.exec(raw)) && m[0] !== '') {
    const seg = m[1];
    parts.push(seg.startsWith('"') ? (JSON.parse(seg) as string) : seg.startsWith("'") ? seg.slice(1, -1) : seg);
    if (m[2] === '') break;
  }
  return parts;
}

interface Line {
  text: string;
  start: number;
  /** Offset just past the line's break. */
  next: number;
}

function linesOf(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  while (start < text.length) {
    const nl = text.indexOf('\n', start);
    const next = nl < 0 ? text.length : nl + 1;
    lines.push({ text: text.slice(start, next).replace(/\r?\n$/, ''), start, next });
    start = next;
  }
  return lines;
}

function headerPath(line: string): string[] | undefined {
  const m = /^\s*\[\[?([^\]]+)\]\]?\s*(#.*)?$/.exec(line);
  return m ? splitKeyPath(m[1]) : undefined;
}

function isContent(line: string): boolean {
  return !/^\s*(#.*)?$/.test(line);
}

/** The line range [first, last] of the table at `path` and its sub-tables, if it is one contiguous block. */
function findTable(lines: Line[], path: string[]): { first: number; last: number } | undefined {
  let first = -1;
  let last = -1;
  for (let i = 0; i < lines.length; i++) {
    const hp = headerPath(lines[i].text);
    if (!hp) continue;
    const ours = hp.length >= path.length && path.every((p, j) => hp[j] === p);
    if (ours && first < 0) first = i;
    else if (!ours && first >= 0 && last < 0) last = i - 1;
    else if (ours && last >= 0) return undefined; // split in pieces: let the fallback handle it
  }
  if (first < 0) return undefined;
  if (last < 0) last = lines.length - 1;
  // Comments just before the next table belong to that table, not to ours.
  while (last > first && !isContent(lines[last].text)) last--;
  return { first, last };
}

const KEY = String.raw`(?:"(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)`;
/** A line that starts with a key (dotted or not) and `=`. */
const KEY_LINE = new RegExp(String.raw`^\s*(${KEY}(?:\s*\.\s*${KEY})*)\s*=`);

/**
 * The lines holding the entry at `path` written as keys of a table above it: `spillway = { ... }` under
 * `[mcp_servers]` (a value may go on over the next lines), or dotted keys (`mcp_servers.spillway.command = ...`).
 * `header`: the path of the table they are in. Undefined when there are none, or when they are not one
 * block of lines.
 */
function findKeyLines(lines: Line[], path: string[]): { first: number; last: number; header: string[] } | undefined {
  // The table the lines are in (none inside an array of tables: its keys are not ours).
  let header: string[] | undefined = [];
  let found: { first: number; last: number; header: string[] } | undefined;
  let ours = false;
  for (let i = 0; i < lines.length; i++) {
    const hp = headerPath(lines[i].text);
    if (hp) {
      header = /^\s*\[\[/.test(lines[i].text) ? undefined : hp;
      ours = false;
      continue;
    }
    const m = KEY_LINE.exec(lines[i].text);
    if (m) {
      const full = header && [...header, ...splitKeyPath(m[1])];
      ours = full !== undefined && header!.length < path.length && full.length >= path.length && path.every((p, j) => full[j] === p);
      if (!ours) continue;
      if (found && found.last !== i - 1) return undefined; // in pieces: let the fallback handle it
      found ??= { first: i, last: i, header: header! };
      found.last = i;
    } else if (ours && isContent(lines[i].text)) {
      found!.last = i; // a value that goes on over this line
    }
  }
  return found;
}

/** The document with `key` set (or removed, for undefined); copies only the tables on the path, so TOML dates stay TomlDate. */
function withServer(doc: Record<string, unknown>, file: string, parentPath: string[], key: string, value: unknown): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...doc };
  let obj = copy;
  for (const [i, p] of parentPath.entries()) {
    const child = obj[p];
    if (child !== undefined && (typeof child !== 'object' || child === null || Array.isArray(child))) {
      throw new ConfigShapeError(file, parentPath.slice(0, i + 1).join('.'), Array.isArray(child) ? 'a list' : typeof child);
    }
    obj[p] = { ...((child as Record<string, unknown> | undefined) ?? {}) };
    obj = obj[p] as Record<string, unknown>;
  }
  if (value === undefined) delete obj[key];
  else obj[key] = value;
  return copy;
}

function verified(candidate: string, expected: Record<string, unknown>): boolean {
  try {
    return canonical(parse(candidate, PARSE_OPTIONS)) === canonical(expected);
  } catch {
    return false;
  }
}

/**
 * The whole document as smol-toml writes it, with the file's line breaks (`eol`): a CRLF file stays CRLF.
 * smol-toml writes every string and quoted key with JSON escapes (`\n` as two characters), so each `\n` of
 * its output is a line break, never part of a value.
 */
function wholeFile(doc: Record<string, unknown>, eol: string): string {
  const text = stringify(doc);
  return eol === '\n' ? text : text.replace(/\n/g, eol);
}

/** Sets table `key` under `parentPath` to `value` (creating it), keeping the rest of the text when it can. */
export function setTomlTable(text: string, file: string, parentPath: string[], key: string, value: Record<string, unknown>): TomlEditResult {
  const doc = parseTomlObject(text, file);
  const expected = withServer(doc, file, parentPath, key, value);
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const table = tomlTableText([...parentPath, key], value, eol);
  const lines = linesOf(text);
  const found = findTable(lines, [...parentPath, key]);
  const keyLines = found ? undefined : findKeyLines(lines, [...parentPath, key]);
  let candidate: string;
  if (found) {
    const from = lines[found.first].start;
    const to = lines[found.last].start + lines[found.last].text.length;
    candidate = text.slice(0, from) + table + text.slice(to);
  } else if (keyLines) {
    // Kept as keys of the table they are in, on one line: `spillway = { command = ..., args = [...] }`.
    const first = lines[keyLines.first];
    const last = lines[keyLines.last];
    const relative = [...parentPath, key].slice(keyLines.header.length).map(tomlKey).join('.');
    const line = `${/^\s*/.exec(first.text)![0]}${relative} = ${tomlValue(value)}`;
    candidate = text.slice(0, first.start) + line + text.slice(last.start + last.text.length);
  } else {
    const trimmedEnd = text.replace(/\s*$/, '');
    const sep = trimmedEnd.length === 0 ? '' : text.endsWith('\n') ? eol : eol + eol;
    candidate = text + sep + table + eol;
    if (trimmedEnd.length === 0) candidate = table + eol;
  }
  if (verified(candidate, expected)) return { text: candidate, rewritten: false };
  return { text: wholeFile(expected, eol), rewritten: true };
}

/** Removes table `key` under `parentPath` (and its sub-tables), keeping the rest of the text when it can. */
export function removeTomlTable(text: string, file: string, parentPath: string[], key: string): TomlEditResult {
  const doc = parseTomlObject(text, file);
  let obj: unknown = doc;
  for (const p of parentPath) obj = obj && typeof obj === 'object' ? (obj as Record<string, unknown>)[p] : undefined;
  if (!obj || typeof obj !== 'object' || !(key in obj)) return { text, rewritten: false };
  const expected = withServer(doc, file, parentPath, key, undefined);
  const lines = linesOf(text);
  const found = findTable(lines, [...parentPath, key]) ?? findKeyLines(lines, [...parentPath, key]);
  if (found) {
    let first = found.first;
    // Take back the blank line we put before the table when we appended it.
    if (first > 0 && lines[first - 1].text.trim() === '' && !('header' in found)) first--;
    const from = lines[first].start;
    const to = lines[found.last].next;
    let candidate = text.slice(0, from) + text.slice(to);
    if (from === 0) candidate = candidate.replace(/^(\r?\n)+/, '');
    // A servers table left empty may vanish with our table when it was only implied by our header.
    const withoutEmptyParent = dropEmptyTable(expected, parentPath);
    if (verified(candidate, expected) || verified(candidate, withoutEmptyParent)) return { text: candidate, rewritten: false };
  }
  return { text: wholeFile(expected, text.includes('\r\n') ? '\r\n' : '\n'), rewritten: true };
}

function dropEmptyTable(doc: Record<string, unknown>, path: string[]): Record<string, unknown> {
  if (path.length !== 1) return doc;
  const table = doc[path[0]];
  if (!table || typeof table !== 'object' || Object.keys(table).length > 0) return doc;
  const copy = { ...doc };
  delete copy[path[0]];
  return copy;
}

/** The exact text of the table at `path` as it stands in the file (for the consent dialog). */
export function tomlTableTextIn(text: string, path: string[]): string | undefined {
  const lines = linesOf(text);
  const found = findTable(lines, path) ?? findKeyLines(lines, path);
  if (!found) return undefined;
  return text.slice(lines[found.first].start, lines[found.last].start + lines[found.last].text.length);
}
