/**
 * Exposed names for upstream tools and prompts: `<server>__<name>`, only [A-Za-z0-9_-], within a length
 * budget (Claude Code shows `mcp__spillway__<name>` and the API allows 64; Cursor allows server + tool ≤ 60).
 * Pure and deterministic: the same inputs give the same name on every machine and every start.
 */
import { createHash } from 'node:crypto';
import { compareText } from '../../../shared/plain-text.js';

export const NAME_SEPARATOR = '__';
const HASH_LENGTH = 6;

/** Replaces every character outside [A-Za-z0-9_-] with `_`. */
export function sanitizeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_');
}

function shortHash(text: string, length = HASH_LENGTH): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

export interface NameOptions {
  prefix: boolean;
  maxLength: number;
}

/**
 * The exposed name of one upstream tool/prompt. A name that had to be changed (characters replaced or
 * shortened) gets a short hash of the original, so two originals can never end up with the same name.
 */
export function exposedName(serverId: string, original: string, options: NameOptions, hashLength = HASH_LENGTH, forceHash = false): string {
  const clean = sanitizeName(original) || 'tool';
  const full = options.prefix ? `${serverId}${NAME_SEPARATOR}${clean}` : clean;
  const changed = clean !== original;
  if (!changed && !forceHash && full.length <= options.maxLength) return full;
  const suffix = `_${shortHash(`${serverId}\u0000${original}`, hashLength)}`;
  const room = options.maxLength - suffix.length;
  if (room < 1) throw new Error(`toolNameMaxLength ${options.maxLength} is too short for a hashed name`);
  let head = full.slice(0, room);
  // Keep a prefix intact as long as there is room for at least one character of the tool name.
  if (options.prefix && head.length <= serverId.length + NAME_SEPARATOR.length) {
    head = `${serverId.slice(0, Math.max(1, room - NAME_SEPARATOR.length - 1))}${NAME_SEPARATOR}${clean}`.slice(0, room);
  }
  return `${head}${suffix}`;
}

export interface NamedItem {
  serverId: string;
  original: string;
  prefix: boolean;
}

export interface NameAssignment<T extends NamedItem> {
  names: Map<string, T>;
  /** Items refused because their name clashes with one assigned earlier (prefix off), with the reason. */
  clashes: { item: T; name: string; reason: string }[];
}

/**
 * Assigns exposed names to a whole catalog. Items are processed in a stable order (prefixed first, then by
 * server and name), so the outcome never depends on which upstream connected first. `reserved` names (e.g.
 * Spillway's own tools) are never given away.
 */
export function assignNames<T extends NamedItem>(items: T[], maxLength: number, reserved: Iterable<string> = []): NameAssignment<T> {
  const names = new Map<string, T>();
  const taken = new Set(reserved);
  const clashes: NameAssignment<T>['clashes'] = [];
  const ordered = [...items].sort(
    (a, b) => Number(b.prefix) - Number(a.prefix) || compareText(a.serverId, b.serverId) || compareText(a.original, b.original),
  );
  for (const item of ordered) {
    let name = exposedName(item.serverId, item.original, { prefix: item.prefix, maxLength }, HASH_LENGTH);
    // A name equal to another item's hashed name (vanishingly rare) takes a hash of its own, longer each try.
    for (let len = HASH_LENGTH; taken.has(name) && item.prefix && len <= 16; len += 2) {
      name = exposedName(item.serverId, item.original, { prefix: true, maxLength }, len, true);
    }
    if (taken.has(name)) {
      const owner = names.get(name);
      clashes.push({
        item,
        name,
        reason: owner
          ? `"${item.original}" from server "${item.serverId}" (no prefix) clashes with "${owner.original}" from "${owner.serverId}"; turn the prefix back on for one of them`
          : `"${item.original}" from server "${item.serverId}" (no prefix) clashes with Spillway's own "${name}"`,
      });
      continue;
    }
    taken.add(name);
    names.set(name, item);
  }
  return { names, clashes };
}
