import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { SpooledString } from '../wire/raw-spool.js';
import { looksLikeJson, parseJson } from '../../../shared/plain-text.js';
import { visitStrings } from '../wire/spooled-strings.js';

export { looksLikeJson, parseJson } from '../../../shared/plain-text.js';

export type SpillContentType = 'json' | 'text' | 'mixed' | 'binary';

/** An image, audio or blob-resource block, whose bytes are kept as a file of their own. */
export interface BinaryBlock {
  /** Position in `result.content`. */
  index: number;
  kind: 'image' | 'audio' | 'blob';
  mimeType: string;
  base64: string;
}

/** One text of a result's text view: a text block, an embedded text resource, or structuredContent. */
export interface TextPart {
  /** Position in `result.content`; -1 for the pretty JSON of structuredContent. */
  index: number;
  /** An embedded resource's text rather than a text block's. */
  resource: boolean;
  /** The text, or the file an upstream streamed it to (see raw-texts.ts). */
  text: string | SpooledString;
}

/** What the model would read of a result, and the parts that are not text. */
export interface ResultView {
  /** Text blocks and embedded text resources joined by newlines; structuredContent as pretty JSON when there is no text. */
  text: string;
  /** The texts `text` joins, in order. */
  parts: TextPart[];
  /** True when `text` is the pretty JSON of structuredContent. */
  textFromStructured: boolean;
  textBlocks: number;
  binary: BinaryBlock[];
  contentType: SpillContentType;
}

/**
 * The size of a result as the model reads it: its text view's UTF-8 bytes (what text.txt holds, what
 * Save downloads) plus the decoded bytes of its images, audio and blobs. Not its JSON, which may hold
 * the same data twice (text and structuredContent): the one size the UI shows for a result.
 */
export function viewBytes(view: ResultView): number {
  let bytes = Buffer.byteLength(view.text, 'utf8');
  for (const block of view.binary) bytes += binaryBytes(block);
  return bytes;
}

/** Decoded bytes of one binary block (computed from the base64 length, not decoded). */
export function binaryBytes(block: BinaryBlock): number {
  return Buffer.byteLength(block.base64, 'base64');
}

/** The text view and binary parts of a tool result (see ResultView). */
export function viewResult(result: CallToolResult): ResultView {
  const texts: string[] = [];
  const parts: TextPart[] = [];
  const binary: BinaryBlock[] = [];
  const content = Array.isArray(result.content) ? result.content : [];
  content.forEach((block, index) => {
    if (block.type === 'text') {
      texts.push(block.text);
      parts.push({ index, resource: false, text: block.text });
    } else if (block.type === 'image' || block.type === 'audio') {
      binary.push({ index, kind: block.type, mimeType: block.mimeType, base64: block.data });
    } else if (block.type === 'resource') {
      const resource = block.resource as { text?: unknown; blob?: unknown; mimeType?: unknown };
      if (typeof resource.text === 'string') {
        texts.push(resource.text);
        parts.push({ index, resource: true, text: resource.text });
      } else if (typeof resource.blob === 'string') {
        const mimeType = typeof resource.mimeType === 'string' ? resource.mimeType : 'application/octet-stream';
        binary.push({ index, kind: 'blob', mimeType, base64: resource.blob });
      }
    }
  });
  let text = texts.join('\n');
  let textFromStructured = false;
  if (texts.length === 0 && result.structuredContent !== undefined) {
    text = JSON.stringify(result.structuredContent, null, 2);
    textFromStructured = true;
    parts.push({ index: -1, resource: false, text });
  }
  const hasText = texts.length > 0 || textFromStructured;
  let contentType: SpillContentType;
  if (!hasText && binary.length > 0) contentType = 'binary';
  else if (hasText && binary.length > 0) contentType = 'mixed';
  else if (textFromStructured || looksLikeJson(text)) contentType = 'json';
  else contentType = 'text';
  return { text, parts, textFromStructured, textBlocks: texts.length, binary, contentType };
}

/**
 * The text view of a result some of whose texts are still on disk (`spooled` knows their placeholders),
 * without reading them: undefined when such a text is anywhere but a text block or an embedded text
 * resource, or when the result has binary blocks — those results are read back and viewed as usual.
 */
export interface SpooledView {
  parts: TextPart[];
  /** UTF-8 bytes of the joined text. */
  bytes: number;
  lines: number;
  contentType: 'json' | 'text';
}

export function viewSpooled(result: CallToolResult, spooled: (value: unknown) => SpooledString | undefined): SpooledView | undefined {
  const parts: TextPart[] = [];
  let spooledParts = 0;
  const content = Array.isArray(result.content) ? result.content : [];
  for (const [index, block] of content.entries()) {
    if (block.type === 'text') parts.push({ index, resource: false, text: spooled(block.text) ?? block.text });
    else if (block.type === 'resource' && typeof (block.resource as { text?: unknown }).text === 'string') {
      const text = (block.resource as { text: string }).text;
      parts.push({ index, resource: true, text: spooled(text) ?? text });
    } else if (block.type !== 'resource_link') return undefined;
  }
  for (const part of parts) if (typeof part.text !== 'string') spooledParts++;
  let anywhere = 0;
  visitStrings(result, (s) => {
    if (spooled(s)) anywhere++;
  });
  if (spooledParts === 0 || anywhere !== spooledParts) return undefined;
  let bytes = Math.max(0, parts.length - 1);
  let newlines = Math.max(0, parts.length - 1);
  for (const part of parts) {
    if (typeof part.text === 'string') {
      bytes += Buffer.byteLength(part.text, 'utf8');
      newlines += countChar(part.text, '\n');
    } else {
      bytes += part.text.bytes;
      newlines += part.text.newlines;
    }
  }
  const first = edge(parts[0]!.text, 'start');
  const last = edge(parts[parts.length - 1]!.text, 'end');
  const lines = bytes === 0 ? 0 : last.endsWith('\n') ? newlines : newlines + 1;
  // Only the first and last characters decide, as for a text in memory.
  return { parts, bytes, lines, contentType: looksLikeJson(first + last) ? 'json' : 'text' };
}

/** Up to 1 KiB of a part's start or end, as text (an incomplete character at the cut dropped). */
function edge(text: string | SpooledString, side: 'start' | 'end'): string {
  if (typeof text === 'string') return side === 'start' ? text.slice(0, 1024) : text.slice(-1024);
  return side === 'start' ? text.head.subarray(0, 1024).toString('utf8') : text.tail.toString('utf8');
}

function countChar(text: string, char: string): number {
  let n = 0;
  for (let i = text.indexOf(char); i !== -1; i = text.indexOf(char, i + 1)) n++;
  return n;
}

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/mpeg': 'mp3',
  'audio/ogg': 'ogg',
  'audio/webm': 'webm',
  'application/pdf': 'pdf',
};

/** File name for a binary block, e.g. `block-2.png`. */
export function binaryFileName(block: BinaryBlock): string {
  return `block-${block.index}.${EXTENSIONS[block.mimeType.toLowerCase()] ?? 'bin'}`;
}

/** Marks a binary block's data moved to a file of its own; `restoreBinaryFiles` puts it back. */
const FILE_REF = 'spillway-file:';

/** A copy of the result whose binary blocks point at their files instead of carrying base64. */
export function withBinaryAsFiles(result: CallToolResult, view: ResultView): CallToolResult {
  const content = [...(result.content ?? [])] as Array<Record<string, unknown>>;
  for (const block of view.binary) {
    const original = content[block.index]!;
    const ref = FILE_REF + binaryFileName(block);
    content[block.index] =
      original.type === 'resource' ? { ...original, resource: { ...(original.resource as object), blob: ref } } : { ...original, data: ref };
  }
  return { ...result, content } as CallToolResult;
}

/** Puts base64 data back into the blocks `withBinaryAsFiles` pointed at files. */
export async function restoreBinaryFiles(
  result: CallToolResult,
  files: Array<{ index: number; file: string }>,
  readBase64: (file: string) => Promise<string>,
): Promise<CallToolResult> {
  for (const { index, file } of files) {
    const block = result.content?.[index] as Record<string, unknown> | undefined;
    if (!block) continue;
    const data = await readBase64(file);
    if (block.type === 'resource') (block.resource as Record<string, unknown>).blob = data;
    else block.data = data;
  }
  return result;
}

/**
 * The values of a text holding several JSON objects or arrays one after another (JSON Lines, or JSON texts
 * joined by line breaks), as one array: undefined when it does not hold two or more of them. `parse` reads
 * JSON text (parseJson, or parseJsonExactly for numbers a double cannot hold); it is given the values as one
 * array's text, so that they are parsed at once.
 */
export function parseJsonSequence(
  text: string,
  parse: (text: string) => { value: unknown } | undefined = parseJson,
): { value: unknown[] } | undefined {
  const values: string[] = [];
  for (let at = 0; ;) {
    while (at < text.length && isSpace(text.charCodeAt(at))) at++;
    if (at === text.length) break;
    const first = text.charCodeAt(at);
    if (first !== 0x7b && first !== 0x5b) return undefined; // `{`, `[`
    const end = valueEnd(text, at);
    if (end === -1) return undefined;
    values.push(text.slice(at, end));
    at = end;
  }
  if (values.length < 2) return undefined;
  // Each value was cut at its own closing bracket, so none can run into the next: the array is JSON when each is.
  const array = parse(`[${values.join(',')}]`);
  return array && Array.isArray(array.value) ? { value: array.value as unknown[] } : undefined;
}

/** How far into a text sequenceStart looks: walking and parsing 1 MB takes a few ms. */
export const SEQUENCE_START_CHARS = 1_000_000;

/**
 * Whether a text that is not one JSON value holds several one after another (as parseJsonSequence reads
 * it), judged from its start so as not to hold the main thread with all of it (review s21: 0.36 s for
 * 41.7 M characters): the values ending in its first `maxChars`, parsed, when they are two or more, or one
 * with another starting after it; false when its start shows it does not; undefined when its first value
 * runs on past `maxChars`, which says nothing. A text whose start is a run of values may still break later.
 */
export function sequenceStart(text: string, maxChars = SEQUENCE_START_CHARS): { value: unknown[] } | false | undefined {
  const limit = Math.min(text.length, maxChars);
  const values: string[] = [];
  let more = false; // a value starts, but does not end, before the limit
  for (let at = 0; ;) {
    while (at < limit && isSpace(text.charCodeAt(at))) at++;
    if (at === text.length) break;
    if (at >= limit) {
      more = true; // whether a value follows is past the limit: one may
      break;
    }
    const first = text.charCodeAt(at);
    if (first !== 0x7b && first !== 0x5b) return false; // `{`, `[`
    const end = valueEnd(text, at, limit);
    if (end === -1) {
      if (limit === text.length) return false; // it never closes
      more = true;
      break;
    }
    values.push(text.slice(at, end));
    at = end;
  }
  if (values.length === 0) return undefined;
  if (values.length + (more ? 1 : 0) < 2) return false;
  const array = parseJson(`[${values.join(',')}]`);
  return array && Array.isArray(array.value) ? { value: array.value as unknown[] } : false;
}

/**
 * Just past the bracket closing the object or array that starts at `start` (by brackets outside strings);
 * -1 when none does before `limit`.
 */
function valueEnd(text: string, start: number, limit = text.length): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < limit; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // `\`: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if ((c === 0x7d || c === 0x5d) && --depth === 0) return i + 1;
  }
  return -1;
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

/** Lines in a text; a trailing newline does not start another line. */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  return text.endsWith('\n') ? lines - 1 : lines;
}
