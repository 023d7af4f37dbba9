/**
 * The servers table of a JSON/JSONC file, read once. Claude Code's ~/.claude.json grows to tens of MB
 * (every project's history), and the hub runs in the app's main process: building a syntax tree of such a
 * file costs most of a second, and comparing two versions of it as data several more. So the file is
 * scanned once without building a tree (which checks it and finds the servers object), only the servers
 * object is parsed, and a change is made and checked inside that object's own text: the bytes around it are
 * kept as they are. A file without a servers object yet is parsed whole, to add one, and the new text
 * scanned again to check it.
 */
import { findNodeAtLocation, getNodeValue, parseTree, visit, type Node, type ParseError } from 'jsonc-parser';
import type { ClientDefinition } from './client-definition.js';
import { ConfigShapeError, DuplicateKeyError } from './config-errors.js';
import {
  describeNode,
  detectJsonFormatting,
  indentOf,
  lineColumn,
  parseJsoncTree,
  removeJsoncProperty,
  setJsoncProperty,
  type JsonFormatting,
} from './jsonc-edit.js';
import { assertServersChange, internalEditError, type ParsedServers, type ServerChange } from './servers-edit.js';
import { SPILLWAY_ENTRY_NAME } from './types.js';

const keyOf = (prop: Node): unknown => prop.children?.[0]?.value;

/** The properties of `obj` named `key` (`at`: where obj's text starts); more than one → DuplicateKeyError naming their lines. */
function onlyProperty(text: string, file: string, obj: Node, at: number, key: string, shown: string): Node | undefined {
  const found = (obj.children ?? []).filter((p) => keyOf(p) === key);
  if (found.length > 1) {
    throw new DuplicateKeyError(
      file,
      shown,
      found.map((p) => lineColumn(text, at + p.offset)),
    );
  }
  return found[0];
}

interface PathScan {
  /** No syntax error, and the top level is an object. */
  valid: boolean;
  /** For each key of the path, where it is named in the object the keys before it lead to. */
  keys: number[][];
  /** Where the objects at the path start and end. */
  spans: { offset: number; end: number }[];
}

/** What `text` holds along `path`: a scan that builds no tree. */
function scanPath(text: string, path: readonly string[]): PathScan {
  // For each open object or array, outermost first: the key last named in it (none in an array).
  const keyIn: (string | undefined)[] = [];
  const keys: number[][] = path.map(() => []);
  const spans: { offset: number; end: number }[] = [];
  let errors = 0;
  let root: 'object' | 'other' | undefined;
  const onPath = (depth: number) => path.slice(0, depth).every((k, i) => keyIn[i] === k);
  const atPath = () => keyIn.length === path.length && onPath(path.length);
  visit(
    text,
    {
      onObjectBegin(offset) {
        root ??= 'object';
        if (atPath()) spans.push({ offset, end: -1 });
        keyIn.push(undefined);
      },
      onObjectProperty(name, offset) {
        const depth = keyIn.length - 1;
        if (depth < path.length && name === path[depth] && onPath(depth)) keys[depth].push(offset);
        keyIn[depth] = name;
      },
      onObjectEnd(offset, length) {
        keyIn.pop();
        const last = spans[spans.length - 1];
        if (atPath() && last?.end === -1) last.end = offset + length;
      },
      onArrayBegin() {
        root ??= 'other';
        keyIn.push(undefined);
      },
      onArrayEnd() {
        keyIn.pop();
      },
      onLiteralValue() {
        root ??= 'other';
      },
      onError() {
        errors++;
      },
    },
    { allowTrailingComma: true, disallowComments: false },
  );
  return { valid: errors === 0 && root === 'object', keys, spans };
}

/** The servers object: where its text starts in the file, and its syntax tree (offsets within that text). */
interface ServersObject {
  at: number;
  node: Node;
}

/** The object whose text starts at `offset` and ends before `end`, parsed alone. */
function objectAt(text: string, file: string, offset: number, end: number): ServersObject {
  const node = parseTree(text.slice(offset, end), [], { allowTrailingComma: true, disallowComments: false });
  if (node?.type !== 'object') throw internalEditError(file);
  return { at: offset, node };
}

/**
 * The servers object, walking `path` from the root: undefined when a key on the way is missing or null
 * (the object is created on write). A key there twice → DuplicateKeyError; a value that is no object →
 * ConfigShapeError.
 */
function serversObject(text: string, file: string, path: readonly string[]): { servers: ServersObject } | { root: Node | null } {
  const scan = scanPath(text, path);
  if (scan.valid) {
    const twice = scan.keys.findIndex((offsets) => offsets.length > 1);
    if (twice >= 0) {
      throw new DuplicateKeyError(
        file,
        path.slice(0, twice + 1).join('.'),
        scan.keys[twice].map((o) => lineColumn(text, o)),
      );
    }
    if (scan.spans.length === 1) return { servers: objectAt(text, file, scan.spans[0].offset, scan.spans[0].end) };
  }
  // Malformed (the parse says where), or no servers object yet (the whole tree is needed to add one).
  const root = parseJsoncTree(text, file) ?? null;
  let node = root;
  for (const [i, key] of path.entries()) {
    const child = node && onlyProperty(text, file, node, 0, key, path.slice(0, i + 1).join('.'))?.children?.[1];
    if (!child || child.type === 'null') return { root };
    if (child.type !== 'object') throw new ConfigShapeError(file, path.slice(0, i + 1).join('.'), describeNode(child));
    node = child;
  }
  return node ? { servers: objectAt(text, file, node.offset, node.offset + node.length) } : { root };
}

/** The JSON file's servers; read once, see the file's comment. */
export function parseJsonServers(def: ClientDefinition, text: string, file: string): ParsedServers {
  const found = serversObject(text, file, def.serversPath);
  const servers = 'servers' in found ? (getNodeValue(found.servers.node) as Record<string, unknown>) : {};
  return {
    servers,
    entryText() {
      if (!('servers' in found)) return undefined;
      const { at, node } = found.servers;
      const prop = onlyProperty(text, file, node, at, SPILLWAY_ENTRY_NAME, SPILLWAY_ENTRY_NAME);
      return prop ? text.slice(at + prop.offset, at + prop.offset + prop.length) : undefined;
    },
    apply(changes) {
      if (changes.length === 0) return { text, rewritten: false };
      const fmt = detectJsonFormatting(text);
      const out =
        'servers' in found ? editInside(text, file, found.servers, servers, changes, fmt) : createServers(def, text, file, found.root, changes, fmt);
      return { text: out, rewritten: false };
    },
  };
}

/**
 * The change made in the servers object's text alone, as a document of its own: the spaces that start its
 * line go first, so the edits indent as they would in the whole file. The object's new text must parse
 * as one object holding exactly the changed servers; the bytes before and after it are the file's own.
 */
function editInside(
  text: string,
  file: string,
  { at, node }: ServersObject,
  servers: Record<string, unknown>,
  changes: readonly ServerChange[],
  fmt: JsonFormatting,
): string {
  for (const c of changes) onlyProperty(text, file, node, at, c.name, c.name);
  const pad = indentOf(text, at);
  const before = pad + text.slice(at, at + node.length);
  let local = before;
  for (const c of changes) {
    local = c.value === undefined ? removeJsoncProperty(local, file, [], c.name) : setJsoncProperty(local, file, [], c.name, c.value, { fmt });
  }
  if (local === before) return text;
  const errors: ParseError[] = [];
  const tree = parseTree(local, errors, { allowTrailingComma: true, disallowComments: false });
  // The object alone, from the first byte after the spaces to the last: nothing added around it.
  if (errors.length > 0 || tree?.type !== 'object' || tree.offset !== pad.length || tree.offset + tree.length !== local.length) {
    throw internalEditError(file);
  }
  assertServersChange(file, servers, getNodeValue(tree) as Record<string, unknown>, changes);
  return text.slice(0, at) + local.slice(pad.length) + text.slice(at + node.length);
}

/**
 * A file without a servers object (or with null in its place) gets one holding the servers set. Checked
 * without a second tree: every byte the file had is still there in order (the edit inserts, or replaces
 * blanks or that null), the new text is valid, and the object at the servers path, there once, holds
 * exactly the servers set.
 */
function createServers(
  def: ClientDefinition,
  text: string,
  file: string,
  root: Node | null,
  changes: readonly ServerChange[],
  fmt: JsonFormatting,
): string {
  const created: Record<string, unknown> = {};
  for (const c of changes) {
    if (c.value === undefined) delete created[c.name];
    else created[c.name] = c.value;
  }
  if (Object.keys(created).length === 0) return text;
  const path = [...def.serversPath];
  const out = setJsoncProperty(text, file, path.slice(0, -1), path[path.length - 1], created, { root, fmt });
  const wasNull = root !== null && findNodeAtLocation(root, path)?.type === 'null';
  if (!keepsEveryByte(text, out, wasNull)) throw internalEditError(file);
  const scan = scanPath(out, path);
  if (!scan.valid || scan.spans.length !== 1 || scan.keys.some((offsets) => offsets.length !== 1)) throw internalEditError(file);
  const made = objectAt(out, file, scan.spans[0].offset, scan.spans[0].end);
  assertServersChange(file, {}, getNodeValue(made.node) as Record<string, unknown>, changes);
  return out;
}

/**
 * Whether `after` holds every byte of `before` in order: outside the one range where they differ, the same
 * bytes; inside it, the old bytes are blanks, the null that was replaced, or still there among the new ones.
 */
function keepsEveryByte(before: string, after: string, wasNull: boolean): boolean {
  const limit = Math.min(before.length, after.length);
  let head = 0;
  while (head < limit && before.charCodeAt(head) === after.charCodeAt(head)) head++;
  let tail = 0;
  while (tail < limit - head && before.charCodeAt(before.length - 1 - tail) === after.charCodeAt(after.length - 1 - tail)) tail++;
  const removed = before.slice(head, before.length - tail);
  const added = after.slice(head, after.length - tail);
  if (/^\s*$/.test(removed) || (wasNull && removed.trim() === 'null')) return true;
  let i = 0;
  for (let j = 0; j < added.length && i < removed.length; j++) if (added.charCodeAt(j) === removed.charCodeAt(i)) i++;
  return i === removed.length;
}
