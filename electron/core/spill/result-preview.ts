/**
 * What the model reads in place of a result over its threshold: a token-accurate preview (a structural
 * summary for JSON) under a header with the sizes, and for a spilled result the handle and how to read more.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ResultEncoding } from '../../../shared/policy.js';
import { encodeValue, isUniformObjectArray, tokensSaved } from '../encoding/toon-encoding.js';
import type { TokenBudgetCut, TokenCount, TokenCounter } from '../tokens/token-counter.js';
import { formatCount, SUMMARY_ITEMS, summarizeJson, summaryArrays, type ShownTable } from './json-summary.js';
import { READ_RESULT_TOOL_REFERENCE } from './read-result-tool.js';
import { parseJson, type ResultView } from './result-view.js';
import { formatBytes, formatDuration } from './size-labels.js';
import { spillUri } from './spill-handle.js';
import type { SpillEntry } from './spill-store.js';

export interface Preview {
  text: string;
  tokens: number;
  /** Lines of the text view the preview shows (0 for a JSON summary). */
  lines: number;
  summary: boolean;
  /** Set when items are shown as TOON: the line saying so, and the tokens that saved against JSON. */
  encoding?: { note: string; tokensSaved: number };
}

export interface Sizes {
  tokens: TokenCount;
  bytes: number;
  preview: Preview;
}

/**
 * The preview of a result over its threshold: a structural summary for JSON, else the text's start
 * (`start`, when the spill decision's survey has cut it already).
 */
export async function buildPreview(
  result: CallToolResult,
  view: ResultView,
  previewTokens: number,
  counter: TokenCounter,
  start?: TokenBudgetCut,
  encoding: ResultEncoding = 'auto',
): Promise<Preview> {
  if (view.contentType === 'json') {
    const json = view.textFromStructured ? { value: result.structuredContent } : parseJson(view.text);
    if (json) return summaryPreview(json.value, previewTokens, counter, encoding);
  }
  return start ? startPreview(start) : textPreview(view.text, previewTokens, counter);
}

/** A JSON value's structural summary, cut to the preview budget; uniform items as TOON where `encoding` allows. */
export async function summaryPreview(
  value: unknown,
  previewTokens: number,
  counter: TokenCounter,
  encoding: ResultEncoding = 'auto',
): Promise<Preview> {
  const shown = encoding === 'json' ? undefined : await summaryTables(value, previewTokens, encoding, counter);
  const { text, tokens } = await counter.cutToTokens(summarizeJson(value, previewTokens * 8, shown?.tables), previewTokens);
  const preview: Preview = { text, tokens, lines: 0, summary: true };
  if (shown && shown.saved > 0) {
    const percent = Math.round((shown.saved / Math.max(1, shown.jsonTokens)) * 100);
    preview.encoding = { note: `items shown as TOON (tabular), ${percent}% fewer tokens than JSON`, tokensSaved: shown.saved };
  }
  return preview;
}

/**
 * The first items of the arrays the summary shows, as TOON where they are uniform objects and the
 * encoding pays; fewer rows where a table would take most of the budget (a cut table would not decode).
 */
async function summaryTables(
  value: unknown,
  previewTokens: number,
  encoding: ResultEncoding,
  counter: TokenCounter,
): Promise<{ tables: Map<string, ShownTable>; saved: number; jsonTokens: number } | undefined> {
  const tables = new Map<string, ShownTable>();
  let saved = 0;
  let jsonTokens = 0;
  for (const { path, items } of summaryArrays(value)) {
    let rows = Math.min(items.length, SUMMARY_ITEMS);
    if (!isUniformObjectArray(items.slice(0, rows))) continue;
    for (; rows >= 2; rows = Math.floor(rows / 2)) {
      const encoded = await encodeValue(items.slice(0, rows), encoding, counter);
      if (encoded.encoding !== 'toon') break;
      if (encoded.toonTokens! > previewTokens / 2 && rows > 2) continue;
      tables.set(path, { toon: encoded.text, rows });
      saved += tokensSaved(encoded);
      jsonTokens += encoded.jsonTokens;
      break;
    }
  }
  return tables.size > 0 ? { tables, saved, jsonTokens } : undefined;
}

/** A text's start, cut to the preview budget. */
export async function textPreview(source: string, previewTokens: number, counter: TokenCounter): Promise<Preview> {
  return startPreview(await counter.cutToTokens(source, previewTokens));
}

/** The preview of a text's start already cut to the budget. */
export function startPreview({ text, tokens }: TokenBudgetCut): Preview {
  let lines = text.length === 0 ? 0 : 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  return { text, tokens, lines, summary: false };
}

/** `~14,246 tokens (52.1 KB)`. */
export function sizeLabel(sizes: Sizes): string {
  const tokens = `${sizes.tokens.estimated ? '~' : ''}${formatCount(sizes.tokens.tokens)} tokens`;
  return `${tokens} (${formatBytes(sizes.bytes)})`;
}

function showing(preview: Preview): string {
  const encoding = preview.encoding ? `; ${preview.encoding.note}` : '';
  return preview.summary
    ? `showing a structural summary (${formatCount(preview.tokens)} tokens${encoding})`
    : `showing the first ${formatCount(preview.tokens)} tokens (${formatCount(preview.lines)} ${preview.lines === 1 ? 'line' : 'lines'})`;
}

/** The header of a spilled result: sizes, what the preview shows, the handle and how to read more. */
export function spilledHeader(sizes: Sizes, entry: SpillEntry, now: number, previewLines: number): string {
  const h = entry.handle;
  const examples = [
    `{"handle":"${h}","op":"grep","pattern":"<regex>"}`,
    entry.contentType === 'json'
      ? `{"handle":"${h}","op":"query","query":".items | size()"}`
      : `{"handle":"${h}","op":"slice","start":${previewLines + 1},"end":${previewLines + 200}}`,
    `{"handle":"${h}","op":"stat"}`,
  ];
  const binary =
    entry.binary.length > 0
      ? `\n${entry.binary.length} binary block(s) (${entry.binary.map((b) => b.mimeType).join(', ')}) are kept with it: resources/read ${spillUri(h)}.`
      : '';
  return (
    `[Spillway] Result too large for the context, kept in full: ${sizeLabel(sizes)} — ${showing(sizes.preview)}.\n` +
    `Handle "${h}", kept until ${new Date(entry.expiresAt).toISOString()} (${formatDuration(entry.expiresAt - now)}). ` +
    `Read more with ${READ_RESULT_TOOL_REFERENCE}, e.g.\n  ${examples.join('\n  ')}\n` +
    `Ops: stat, head, tail, slice (lines), grep (regex), query (JSON), read (from an offset).${binary}`
  );
}

/** The header of a truncated result, saying why the rest is gone. */
export function truncatedHeader(sizes: Sizes, why: string): string {
  return `[Spillway] TRUNCATED: this result was ${sizeLabel(sizes)} — ${showing(sizes.preview)}. ${why}`;
}

/** The `_meta` of a shaped result: its token count and `extra`. */
export function meta(tokens: TokenCount, extra: Record<string, unknown>): Record<string, unknown> {
  return { ...extra, 'spillway/tokens': tokens.tokens, 'spillway/tokensEstimated': tokens.estimated };
}
