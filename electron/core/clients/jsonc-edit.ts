import { createScanner, findNodeAtLocation, getNodeValue, parseTree, type Node, type ParseError } from 'jsonc-parser';
import { ConfigParseError, ConfigShapeError } from './config-errors.js';
import { jsonProblem } from '../../../shared/json-problems.js';

/*
 * Byte-exact edits of one property in a JSON/JSONC file.
 *
 * jsonc-parser's `modify` + `applyEdits` keeps comments, but its formatter re-indents the lines it
 * touches: adding a server reflowed the neighbouring server's one-line object, and a trailing comment
 * moved to another line. Users' files must stay byte-identical outside our entry, so we use
 * jsonc-parser for what it is good at (the syntax tree with offsets, the scanner) and write the
 * insert/remove text ourselves, in the file's own indentation and line endings.
 */

// jsonc-parser's SyntaxKind is a const enum, which verbatimModuleSyntax cannot import: its values.
const COMMA = 5;
const LINE_COMMENT = 12;
const BLOCK_COMMENT = 13;
const LINE_BREAK = 14;
const TRIVIA = 15;

export interface JsonFormatting {
  eol: string;
  /** One level of indentation: a tab or N spaces. */
  unit: string;
}

interface Edit {
  offset: number;
  length: number;
  content: string;
}

/** The line ending and indentation the file already uses (CRLF and tabs are kept as found). */
export function detectJsonFormatting(text: string): JsonFormatting {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  let unit = '  ';
  let smallest = Infinity;
  for (const line of text.split(/\r?\n/).slice(0, 200)) {
    const m = /^([ \t]+)\S/.exec(line);
    if (!m) continue;
    if (m[1].startsWith('\t')) {
      unit = '\t';
      break;
    }
    if (m[1].length < smallest) {
      smallest = m[1].length;
      unit = ' '.repeat(smallest);
    }
  }
  return { eol, unit };
}

/** The 1-based line and column of `offset` in `text`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/** The syntax tree of a JSONC file; undefined when it holds no value (empty, or comments only). */
export function parseJsoncTree(text: string, file: string): Node | undefined {
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true });
  if (errors.length > 0) {
    const e = errors[0];
    const { line, column } = lineColumn(text, e.offset);
    throw new ConfigParseError(file, `${jsonProblem(e.error)}, so it is not valid JSON`, line, column);
  }
  if (tree && tree.type !== 'object') {
    throw new ConfigParseError(file, `the top level is ${describeNode(tree)}, not an object in { }`, 1, 1);
  }
  return tree;
}

/** The file's value as plain data ({} for an empty file). Throws ConfigParseError when malformed. */
export function parseJsoncObject(text: string, file: string): Record<string, unknown> {
  const tree = parseJsoncTree(text, file);
  return tree ? (getNodeValue(tree) as Record<string, unknown>) : {};
}

/** How a value that is not an object reads in a message: "a list", "a string", "null". */
export function describeNode(node: Node): string {
  return node.type === 'null' ? 'null' : node.type === 'array' ? 'a list' : `a ${node.type}`;
}

function lineStartOf(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/** Offset of the line break ending the line that holds `offset` (or the text's end). */
function lineEndOf(text: string, offset: number): number {
  const nl = text.indexOf('\n', offset);
  if (nl < 0) return text.length;
  return text[nl - 1] === '\r' ? nl - 1 : nl;
}

function afterLineBreak(text: string, lineEnd: number): number {
  if (text.startsWith('\r\n', lineEnd)) return lineEnd + 2;
  if (text[lineEnd] === '\n') return lineEnd + 1;
  return lineEnd;
}

function startsItsLine(text: string, offset: number): boolean {
  return /^[ \t]*$/.test(text.slice(lineStartOf(text, offset), offset));
}

/** The spaces and tabs that start the line holding `offset`. */
export function indentOf(text: string, offset: number): string {
  return /^[ \t]*/.exec(text.slice(lineStartOf(text, offset)))![0];
}

/** The first token after `offset` that is not whitespace or a comment. */
function nextToken(text: string, offset: number): { kind: number; offset: number } {
  const scanner = createScanner(text, false);
  scanner.setPosition(offset);
  for (;;) {
    const kind = scanner.scan();
    if (kind === TRIVIA || kind === LINE_BREAK || kind === LINE_COMMENT || kind === BLOCK_COMMENT) continue;
    return { kind, offset: scanner.getTokenOffset() };
  }
}

function pretty(value: unknown, indent: string, fmt: JsonFormatting): string {
  return JSON.stringify(value, null, fmt.unit)
    .split('\n')
    .join(fmt.eol + indent);
}

function propertyText(key: string, value: unknown, indent: string, fmt: JsonFormatting, inline: boolean): string {
  return `${JSON.stringify(key)}: ${inline ? JSON.stringify(value) : pretty(value, indent, fmt)}`;
}

function applyEdits(text: string, edits: Edit[]): string {
  let out = text;
  // Back to front; of two inserts at one offset, the later one is applied first so the earlier one ends up first.
  const order = edits.map((e, i) => ({ e, i })).sort((a, b) => b.e.offset - a.e.offset || b.i - a.i);
  for (const { e } of order) {
    out = out.slice(0, e.offset) + e.content + out.slice(e.offset + e.length);
  }
  return out;
}

function findProperty(obj: Node, key: string): Node | undefined {
  return obj.children?.find((p) => p.children?.[0]?.value === key);
}

function insertProperty(text: string, obj: Node, key: string, value: unknown, fmt: JsonFormatting): Edit[] {
  const props = obj.children ?? [];
  if (props.length > 0) {
    const last = props[props.length - 1];
    const lastEnd = last.offset + last.length;
    const after = nextToken(text, lastEnd);
    const trailingComma = after.kind === COMMA;
    const edits: Edit[] = [];
    if (!startsItsLine(text, last.offset)) {
      // A one-line object stays on one line.
      const at = trailingComma ? after.offset + 1 : lastEnd;
      const content = trailingComma ? ` ${propertyText(key, value, '', fmt, true)},` : `, ${propertyText(key, value, '', fmt, true)}`;
      return [{ offset: at, length: 0, content }];
    }
    const indent = indentOf(text, last.offset);
    const commaEnd = trailingComma ? after.offset + 1 : lastEnd;
    if (!trailingComma) edits.push({ offset: lastEnd, length: 0, content: ',' });
    // Keep a comment that ends the previous property's line on that line.
    const lineEnd = lineEndOf(text, commaEnd);
    const rest = text.slice(commaEnd, lineEnd);
    const at = /^[ \t]*(\/\/.*|(\/\*[^\n]*?\*\/[ \t]*)*)$/.test(rest) ? lineEnd : commaEnd;
    // A trailing comma is the file's style: our entry gets one too (and removing it restores the bytes).
    const tail = trailingComma ? ',' : '';
    edits.push({ offset: at, length: 0, content: fmt.eol + indent + propertyText(key, value, indent, fmt, false) + tail });
    return edits;
  }
  const open = obj.offset;
  const close = obj.offset + obj.length - 1;
  const parentIndent = indentOf(text, open);
  const childIndent = parentIndent + fmt.unit;
  const entry = fmt.eol + childIndent + propertyText(key, value, childIndent, fmt, false);
  const interior = text.slice(open + 1, close);
  if (/^\s*$/.test(interior)) {
    return [{ offset: open + 1, length: interior.length, content: entry + fmt.eol + parentIndent }];
  }
  // Only comments inside: put the entry first and keep them.
  return [{ offset: open + 1, length: 0, content: entry }];
}

/** Wraps the part of the path that does not exist yet around the value: ['a','b'], v → {b: v} under a. */
function nest(path: string[], value: unknown): unknown {
  return path.reduceRight<unknown>((v, k) => ({ [k]: v }), value);
}

/** What a caller that parsed the text already gives: its tree (null: the text holds no value), the formatting to write in. */
export interface JsoncEditContext {
  root?: Node | null;
  fmt?: JsonFormatting;
}

/**
 * Sets `key` inside the object at `parentPath` to `value`, creating the missing objects on the way.
 * Everything outside the property (comments, order, spacing, line endings) keeps its bytes.
 */
export function setJsoncProperty(
  text: string,
  file: string,
  parentPath: string[],
  key: string,
  value: unknown,
  context: JsoncEditContext = {},
): string {
  const fmt = context.fmt ?? detectJsonFormatting(text);
  const root = context.root === undefined ? parseJsoncTree(text, file) : (context.root ?? undefined);
  if (!root) {
    const body = `${pretty(nest([...parentPath, key], value), '', fmt)}${fmt.eol}`;
    const needsBreak = text.length > 0 && !text.endsWith('\n');
    return text + (needsBreak ? fmt.eol : '') + body;
  }
  let obj = root;
  for (let i = 0; i < parentPath.length; i++) {
    const prop = findProperty(obj, parentPath[i]);
    const child = prop?.children?.[1];
    if (!prop || !child) {
      return applyEdits(text, insertProperty(text, obj, parentPath[i], nest([...parentPath.slice(i + 1), key], value), fmt));
    }
    if (child.type === 'null') {
      const indent = indentOf(text, prop.offset);
      const content = pretty(nest([...parentPath.slice(i + 1), key], value), indent, fmt);
      return applyEdits(text, [{ offset: child.offset, length: child.length, content }]);
    }
    if (child.type !== 'object') throw new ConfigShapeError(file, parentPath.slice(0, i + 1).join('.'), describeNode(child));
    obj = child;
  }
  const existing = findProperty(obj, key);
  const valueNode = existing?.children?.[1];
  if (existing && valueNode) {
    const inline = !startsItsLine(text, existing.offset);
    const content = inline ? JSON.stringify(value) : pretty(value, indentOf(text, existing.offset), fmt);
    return applyEdits(text, [{ offset: valueNode.offset, length: valueNode.length, content }]);
  }
  return applyEdits(text, insertProperty(text, obj, key, value, fmt));
}

/** Removes `key` from the object at `parentPath`; the rest of the file keeps its bytes. */
export function removeJsoncProperty(text: string, file: string, parentPath: string[], key: string): string {
  const root = parseJsoncTree(text, file);
  const obj = root && (parentPath.length === 0 ? root : findNodeAtLocation(root, parentPath));
  if (!obj || obj.type !== 'object') return text;
  const props = obj.children ?? [];
  const index = props.findIndex((p) => p.children?.[0]?.value === key);
  if (index < 0) return text;
  const prop = props[index];
  const end = prop.offset + prop.length;
  const after = nextToken(text, end);
  const commaAfter = after.kind === COMMA ? after.offset : undefined;
  const regionEnd = commaAfter === undefined ? end : commaAfter + 1;
  const edits: Edit[] = [];
  const restOfLine = text.slice(regionEnd, lineEndOf(text, regionEnd));
  if (startsItsLine(text, prop.offset) && /^[ \t]*$/.test(restOfLine)) {
    const from = lineStartOf(text, prop.offset);
    const to = afterLineBreak(text, lineEndOf(text, regionEnd));
    edits.push({ offset: from, length: to - from, content: '' });
    if (commaAfter === undefined && index > 0) {
      // We removed the last property: the one before it loses its separating comma.
      const prev = props[index - 1];
      const comma = nextToken(text, prev.offset + prev.length);
      if (comma.kind === COMMA) edits.push({ offset: comma.offset, length: 1, content: '' });
    }
  } else if (commaAfter !== undefined) {
    const next = nextToken(text, commaAfter + 1);
    edits.push({ offset: prop.offset, length: next.offset - prop.offset, content: '' });
  } else if (index > 0) {
    const prev = props[index - 1];
    const prevEnd = prev.offset + prev.length;
    edits.push({ offset: prevEnd, length: end - prevEnd, content: '' });
  } else {
    edits.push({ offset: prop.offset, length: end - prop.offset, content: '' });
  }
  let out = applyEdits(text, edits);
  if (props.length === 1) {
    // An object left with only whitespace inside goes back to `{}`, as it was before we added to it.
    const emptied = findNodeAtLocation(parseJsoncTree(out, file)!, parentPath) ?? parseJsoncTree(out, file)!;
    const interior = out.slice(emptied.offset + 1, emptied.offset + emptied.length - 1);
    if (/^\s*$/.test(interior) && interior.length > 0) {
      out = out.slice(0, emptied.offset + 1) + out.slice(emptied.offset + emptied.length - 1);
    }
  }
  return out;
}

/** The exact text of the property at `path` (`"spillway": {...}`), as it stands in the file. */
export function jsoncPropertyText(text: string, file: string, path: string[]): string | undefined {
  const root = parseJsoncTree(text, file);
  if (!root || path.length === 0) return undefined;
  const parent = path.length === 1 ? root : findNodeAtLocation(root, path.slice(0, -1));
  const prop = parent?.type === 'object' ? findProperty(parent, path[path.length - 1]) : undefined;
  return prop ? text.slice(prop.offset, prop.offset + prop.length) : undefined;
}
