import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ResultEncoding } from '../../../shared/policy.js';
import { charBoundary } from '../tokens/text-cuts.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { formatCount, shape } from './json-summary.js';
import { linesView, queryAnswer } from './read-encoding.js';
import { grepLines, headLines, queryJson, ReadOpError, readFrom, sliceLines, tailLines } from './read-ops.js';
import { READ_RESULT_TOOL_NAME, ReadResultArgs } from './read-result-tool.js';
import { formatBytes } from './size-labels.js';
import type { SpillDocument } from './spill-document.js';
import type { SpillEntry, SpillStore } from './spill-store.js';

export interface ReadResultOptions {
  /** Cap on what one call returns, so the read-back is never itself too large. Default 8,000. */
  maxOutputTokens?: number;
  /** How long a grep or a query may run before it is cut off (default READ_DEADLINE_MS, 2 s). */
  deadlineMs?: number;
  /** How a result's tabular JSON is shown (issue 18); default 'auto'. */
  encodingFor?: (entry: SpillEntry) => ResultEncoding;
}

const DEFAULT_OUTPUT_TOKENS = 8_000;
const DEFAULT_READ_TOKENS = 2_000;
const DEFAULT_LINES = 50;
const DEFAULT_SLICE_LINES = 100;

/**
 * Serves `spillway__read_result`: one op on one spilled result. Its own output is never spilled: it is
 * capped and says how to narrow the request. Unknown or expired handles, bad arguments, bad or
 * unsupported regexes, bad queries and a grep or query cut off at its deadline are `isError` results with
 * a message the model can act on.
 */
export async function readResult(store: SpillStore, counter: TokenCounter, args: unknown, options: ReadResultOptions = {}): Promise<CallToolResult> {
  const cap = options.maxOutputTokens ?? DEFAULT_OUTPUT_TOKENS;
  const parsed = ReadResultArgs.safeParse(args ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ');
    return failure(`Invalid arguments for ${READ_RESULT_TOOL_NAME}: ${issues}.`);
  }
  const a = parsed.data;
  const found = store.lookup(a.handle);
  if ('error' in found) return failure(found.message);
  const entry = found.entry;

  try {
    const doc = await store.readDocument(entry.handle);
    const encoding = options.encodingFor?.(entry) ?? 'auto';
    // Lines of a tabular JSON result are read on its TOON view, where each row is a line.
    const lined = async (read: (lines: SpillDocument) => string): Promise<string> => {
      const view = entry.contentType === 'json' ? await linesView(doc, encoding, counter) : undefined;
      return view ? `${view.header}\n${read(view.doc)}` : read(doc);
    };
    switch (a.op) {
      case 'stat':
        return await capped(counter, stat(entry, doc), cap, 'stat');
      case 'head':
        return await capped(counter, await lined((d) => headLines(d, a.lines ?? DEFAULT_LINES)), cap, 'lines');
      case 'tail':
        return await capped(counter, await lined((d) => tailLines(d, a.lines ?? DEFAULT_LINES)), cap, 'lines');
      case 'slice': {
        if (a.start === undefined) return failure('slice needs `start` (1-based line number) and optionally `end` (inclusive).');
        const start = a.start;
        return await capped(counter, await lined((d) => sliceLines(d, start, a.end ?? start + DEFAULT_SLICE_LINES - 1)), cap, 'lines');
      }
      case 'grep': {
        if (a.pattern === undefined || a.pattern === '') return failure('grep needs a non-empty `pattern` (a regular expression).');
        const text = grepLines(doc, {
          pattern: a.pattern,
          caseSensitive: a.caseSensitive,
          context: a.context,
          maxMatches: a.maxMatches,
          deadlineMs: options.deadlineMs,
        });
        return await capped(counter, text, cap, 'grep');
      }
      case 'query': {
        if (a.query === undefined || a.query.trim() === '')
          return failure('query needs a `query` (a JSON Query expression or a path like $.items[0]).');
        const answer = await queryJson(doc, a.query, {
          deadlineMs: options.deadlineMs,
          // A few times what the cap shows (~4 characters a token): room for TOON to shrink a table into it.
          maxChars: cap * 16,
          render: (value, pretty) => queryAnswer(value, pretty, encoding, counter),
        });
        return await capped(counter, answer, cap, 'query');
      }
      case 'read':
        return await read(counter, doc, a.offset ?? 0, Math.min(a.maxTokens ?? DEFAULT_READ_TOKENS, cap));
    }
  } catch (error) {
    if (error instanceof ReadOpError) return failure(error.message);
    return failure(`Could not read spilled result "${entry.handle}": ${(error as Error).message}`);
  }
}

function stat(entry: SpillEntry, doc: SpillDocument): string {
  const tokens = entry.tokens === null ? 'not counted' : `${entry.tokensEstimated ? '~' : ''}${formatCount(entry.tokens)}`;
  const lines = [
    `Handle: ${entry.handle}`,
    `From: ${entry.server} / ${entry.tool}${entry.client ? ` (client ${entry.client})` : ''}`,
    `Content type: ${entry.contentType}${entry.textFromStructured ? ' (from structuredContent)' : ''}`,
    `Bytes: ${formatCount(entry.bytes)} (${formatBytes(entry.bytes)}); text ${formatCount(entry.textBytes)} bytes, ${formatCount(doc.text.length)} characters`,
    `Lines: ${formatCount(doc.lines.length)}`,
    `Tokens: ${tokens}`,
    `Created: ${new Date(entry.createdAt).toISOString()}; expires: ${new Date(entry.expiresAt).toISOString()}`,
  ];
  if (entry.binary.length > 0) lines.push(`Binary blocks: ${entry.binary.map((b) => `#${b.index} ${b.kind} ${b.mimeType}`).join(', ')}`);
  if (entry.contentType === 'json' || entry.contentType === 'mixed') {
    const json = doc.json;
    if (json && Array.isArray(json.value)) lines.push(`JSON: array of ${formatCount(json.value.length)} items`);
    else if (json && typeof json.value === 'object' && json.value !== null) {
      const record = json.value as Record<string, unknown>;
      lines.push('JSON top-level keys:');
      for (const key of Object.keys(record).slice(0, 200)) lines.push(`  ${JSON.stringify(key)}: ${shape(record[key])}`);
    }
  }
  return lines.join('\n');
}

async function read(counter: TokenCounter, doc: SpillDocument, asked: number, maxTokens: number): Promise<CallToolResult> {
  const { offset, text: rest } = readFrom(doc, asked);
  if (rest.length === 0) return ok(`[offset ${formatCount(offset)} is the end of the text (${formatCount(doc.text.length)} characters)]`);
  let chunk = await counter.truncateToTokens(rest, maxTokens);
  if (chunk.length === 0) {
    // A first line longer than the budget: cut mid-line rather than return nothing, never inside a character
    // (0 here: the text starts with a surrogate pair, kept whole).
    const end = charBoundary(rest, Math.max(1, maxTokens));
    chunk = rest.slice(0, end > 0 ? end : 2);
  }
  const next = offset + chunk.length;
  const tail =
    next >= doc.text.length
      ? `\n[end of text: characters ${formatCount(offset)}-${formatCount(next)} of ${formatCount(doc.text.length)}]`
      : `\n[characters ${formatCount(offset)}-${formatCount(next)} of ${formatCount(doc.text.length)}; continue with {"op":"read","offset":${next}}]`;
  return ok(chunk + tail);
}

const NARROW: Record<string, string> = {
  stat: 'the key list was cut',
  lines: 'ask for fewer lines (slice with a smaller range, or head/tail with a smaller `lines`)',
  grep: 'use a more specific pattern, a lower maxMatches or less context',
  query: 'select less (filter, pick fields, limit(n)) in the query',
};

async function capped(counter: TokenCounter, text: string, cap: number, kind: string): Promise<CallToolResult> {
  if (await counter.isWithin(text, cap)) return ok(text);
  const cut = await counter.truncateToTokens(text, cap);
  return ok(`${cut}\n[output capped at ${formatCount(cap)} tokens; ${NARROW[kind] ?? 'narrow the request'}]`);
}

function ok(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

function failure(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
