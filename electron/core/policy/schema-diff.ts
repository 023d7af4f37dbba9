/**
 * A short, human-readable diff of two JSON values (tool input schemas), for the pinning approval view.
 */
import { canonicalJson } from './canonical-json.js';

const MAX_LINES = 50;
const MAX_VALUE_CHARS = 80;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPrimitive(value: unknown): boolean {
  return value === null || typeof value !== 'object';
}

function show(value: unknown): string {
  const text = canonicalJson(value);
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}…` : text;
}

function join(base: string, key: string): string {
  return base ? `${base}.${key}` : key;
}

/**
 * Lines `+ path` (added), `- path` (removed), `~ path: old → new` (changed). Arrays of plain values
 * (such as `required` or `enum`) are compared as sets: `+ required[]: "limit"`. At most 50 lines.
 */
export function schemaDiff(before: unknown, after: unknown, base = ''): string[] {
  const lines: string[] = [];
  walk(before, after, base, lines);
  if (lines.length > MAX_LINES) return [...lines.slice(0, MAX_LINES), `… and ${lines.length - MAX_LINES} more changes`];
  return lines;
}

function walk(before: unknown, after: unknown, path: string, lines: string[]): void {
  if (canonicalJson(before) === canonicalJson(after)) return;
  const where = path || '(root)';
  if (isPlainObject(before) && isPlainObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const key of keys) {
      const inBefore = Object.hasOwn(before, key);
      const inAfter = Object.hasOwn(after, key);
      if (inBefore && !inAfter) lines.push(`- ${join(path, key)}`);
      else if (!inBefore && inAfter) lines.push(`+ ${join(path, key)}`);
      else walk(before[key], after[key], join(path, key), lines);
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    if (before.every(isPrimitive) && after.every(isPrimitive)) {
      const was = new Set(before.map(show));
      const now = new Set(after.map(show));
      const start = lines.length;
      for (const v of was) if (!now.has(v)) lines.push(`- ${where}[]: ${v}`);
      for (const v of now) if (!was.has(v)) lines.push(`+ ${where}[]: ${v}`);
      // Same members, different arrays: only the order (or repeats) changed.
      if (lines.length === start) lines.push(`~ ${where}: order changed`);
      return;
    }
    const n = Math.max(before.length, after.length);
    for (let i = 0; i < n; i++) {
      const p = `${where}[${i}]`;
      if (i >= after.length) lines.push(`- ${p}`);
      else if (i >= before.length) lines.push(`+ ${p}`);
      else walk(before[i], after[i], p, lines);
    }
    return;
  }
  lines.push(`~ ${where}: ${show(before)} → ${show(after)}`);
}
