/**
 * What the model reads in place of a result over its threshold: a token-accurate preview (a structural
 * summary for JSON) under a header with the sizes, and for a spilled result the handle and how to read more.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ResultEncoding } from '../../../shared/policy.js';
import { encodeValue, isUniformObjectArray, numbersParseExactly, tokensSaved } from '../encoding/toon-encoding.js';
import type { TokenBudgetCut, TokenCount, TokenCounter } from '../tokens/token-counter.js';
import { exampleQuery, formatCount, SUMMARY_ITEMS, summarizeJson, summaryArrays, type ShownTable } from './json-summary.js';
import { READ_RESULT_TOOL_REFERENCE } from './read-result-tool.js';
import { parseJson, sequenceStart, type ResultView } from './result-view.js';
import { formatBytes, formatDuration } from './size-labels.js';
import { spillUri } from './spill-handle.js';
import type { SpillEntry } from './spill-store.js';

export interface Preview {
  text: string;
  tokens: number;
  /** Lines of the text view the preview shows, a cut last line included (0 for a JSON summary). */
  lines: number;
  /**
   * For a text's start: whether its last line goes on past the preview (true), ends there (false), or may
   * (undefined: the text it was cut from was not at hand to say).
   */
  lastLineCut?: boolean;
  summary: boolean;
  /** For JSON: a query that runs on it, for the header's example (json-summary.ts exampleQuery). */
  query?: string;
  /** Set when items are shown as TOON: the line saying so, and the tokens that saved against JSON. */
  encoding?: { note: string; tokensSaved: number };
  /** Set when a text that starts and ends as JSON does was found not to be (nor a run of JSON values): it is kept as text. */
  notJson?: true;
}

export interface Sizes {
  tokens: TokenCount;
  /** The size of the result as the model reads it (OverThreshold.resultBytes), not its JSON's. */
  bytes: number;
  preview: Preview;
}

/**
 * The preview of a result over its threshold: a structural summary for JSON, else the text's start
 * (`start`, when the spill decision's survey has cut it already). JSON with a number its parsed value
 * would not hold exactly (a 64-bit id) is previewed by its text's start: a summary would show it rounded,
 * as are JSON Lines and joined JSON texts (query reads them as an array: spill-document.ts), told from
 * the text's start (sequenceStart). A text that only starts and ends as JSON does is `notJson`.
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
    if (json && (view.textFromStructured || numbersParseExactly(view.text))) return summaryPreview(json.value, previewTokens, counter, encoding);
    // Several values one after another are told from the text's start: parsing all of it held the main thread.
    const values = json ?? sequenceStart(view.text);
    const preview = start ? startPreview(start, view.text) : await textPreview(view.text, previewTokens, counter);
    if (values === false) return { ...preview, notJson: true };
    const query = values && exampleQuery(values.value);
    return query ? { ...preview, query } : preview;
  }
  return start ? startPreview(start, view.text) : textPreview(view.text, previewTokens, counter);
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
  const query = exampleQuery(value);
  if (query) preview.query = query;
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
  return startPreview(await counter.cutToTokens(source, previewTokens), source);
}

/**
 * The preview of a text's start already cut to the budget. `source`, the text it was cut from (or at least
 * a start of it that goes past the cut), says whether the cut is inside a line; without it that is not known.
 */
export function startPreview({ text, tokens }: TokenBudgetCut, source?: string): Preview {
  // Counted as SpillDocument numbers lines for slice: a trailing line break does not start another line.
  let lines = text.length === 0 || text.endsWith('\n') ? 0 : 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  const preview: Preview = { text, tokens, lines, summary: false };
  if (text.length === 0 || text.endsWith('\n')) preview.lastLineCut = false;
  else if (source !== undefined && source.length > text.length) preview.lastLineCut = !/^\r?\n/.test(source.slice(text.length, text.length + 2));
  else if (source !== undefined) preview.lastLineCut = false; // the whole text
  return preview;
}

/** `14,246 tokens`, `1 token` (a result kept as asked may have one). */
function tokenCount(n: number): string {
  return `${formatCount(n)} ${n === 1 ? 'token' : 'tokens'}`;
}

/** `~14,246 tokens (52.1 KB)`. */
export function sizeLabel(sizes: Sizes): string {
  const tokens = `${sizes.tokens.estimated ? '~' : ''}${tokenCount(sizes.tokens.tokens)}`;
  return `${tokens} (${formatBytes(sizes.bytes)})`;
}

function showing(preview: Preview): string {
  const encoding = preview.encoding ? `; ${preview.encoding.note}` : '';
  if (preview.summary) return `showing a structural summary (${tokenCount(preview.tokens)}${encoding})`;
  const lines = (n: number) => `${formatCount(n)} ${n === 1 ? 'line' : 'lines'}`;
  const n = preview.lines;
  const shown =
    preview.lastLineCut === true
      ? `${n > 1 ? `${lines(n - 1)} and ` : ''}the start of line ${formatCount(n)}, which goes on past the preview`
      : preview.lastLineCut === false
        ? lines(n)
        : `${lines(n)}; the last may go on past the preview`;
  return `showing the first ${tokenCount(preview.tokens)} (${shown})`;
}

/**
 * The header of a spilled result: why it was kept (too large, or `asked` for: dispatch's resultToSpill),
 * sizes, what the preview shows, the handle and how to read more: for a text's start, where it goes on
 * (the next line, or the next character when the preview ends inside a line); for JSON, a query that runs on it.
 */
export function spilledHeader(sizes: Sizes, entry: SpillEntry, now: number, previewLines: number, asked = false): string {
  const h = entry.handle;
  const preview = sizes.preview;
  if (entry.textBytes === 0 && preview.text.length === 0) return noTextHeader(sizes, entry, now, asked);
  const examples = [`{"handle":"${h}","op":"grep","pattern":"<regex>"}`];
  if (!preview.summary) {
    examples.push(
      preview.lastLineCut === false
        ? `{"handle":"${h}","op":"slice","start":${previewLines + 1},"end":${previewLines + 200}}`
        : `{"handle":"${h}","op":"read","offset":${preview.text.length}}`,
    );
  }
  if (preview.query) examples.push(`{"handle":"${h}","op":"query","query":${JSON.stringify(preview.query)}}`);
  examples.push(`{"handle":"${h}","op":"stat"}`);
  const kept = keptBinaryLine(h, entry.binary);
  const binary = kept ? `\n${kept}` : '';
  return (
    `[Spillway] ${asked ? 'Kept aside as asked' : 'Result too large for the context, kept in full'}: ${sizeLabel(sizes)} — ${showing(sizes.preview)}.\n` +
    `Handle "${h}", kept until ${new Date(entry.expiresAt).toISOString()} (${formatDuration(entry.expiresAt - now)}). ` +
    `Read more with ${READ_RESULT_TOOL_REFERENCE}, e.g.\n  ${examples.join('\n  ')}\n` +
    `Ops: stat, head, tail, slice (lines), grep (regex), query (JSON), read (from an offset).${binary}`
  );
}

/**
 * The header of a spilled result with no text (only images, audio or blobs): no text op would find
 * anything, so it says how its blocks are read (resources/read of its link, spill-resource.ts) and stat.
 */
function noTextHeader(sizes: Sizes, entry: SpillEntry, now: number, asked: boolean): string {
  const h = entry.handle;
  const blocks = entry.binary.length;
  const mimeTypes = [...new Set(entry.binary.map((b) => b.mimeType))].join(', ');
  const what =
    blocks === 0 ? 'it is empty' : `it has no text, only ${formatCount(blocks)} binary ${blocks === 1 ? 'block' : 'blocks'} (${mimeTypes})`;
  const read =
    blocks === 0
      ? `Its details: ${READ_RESULT_TOOL_REFERENCE}, {"handle":"${h}","op":"stat"}`
      : `Read the blocks with resources/read ${spillUri(h)} (each as a blob, at ${spillUri(h)}#block-<index>); ` +
        `${READ_RESULT_TOOL_REFERENCE} lists them with\n  {"handle":"${h}","op":"stat"}`;
  return (
    `[Spillway] ${asked ? 'Kept aside as asked' : 'Result too large for the context, kept in full'}: ${sizeLabel(sizes)} — ${what}.\n` +
    `Handle "${h}", kept until ${new Date(entry.expiresAt).toISOString()} (${formatDuration(entry.expiresAt - now)}). ${read}`
  );
}

/** Where the header of a spilled result ends and its preview starts. */
const PREVIEW_SEPARATOR = '\n---\n';

const MASKED_COPY =
  'Personal data in the kept copy is masked: read_result shows placeholders where this shows the real values, ' +
  'so grep or query by other fields (or for the placeholders), not for a personal value seen here.';

/**
 * A kept result's delivered text with a line saying that the kept copy has personal data masked (PII
 * maskResults) while what is delivered has the real values back: without it, grep for a value seen in
 * the preview finds nothing. In the header of a spilled result; at the end of another's first text.
 */
export function noteMaskedCopy(delivered: CallToolResult): CallToolResult {
  const at = delivered.content.findIndex((block) => block.type === 'text');
  const block = delivered.content[at];
  if (!block || block.type !== 'text') return delivered;
  const end = block.text.startsWith('[Spillway] ') ? block.text.indexOf(PREVIEW_SEPARATOR) : -1;
  const text = end === -1 ? `${block.text}\n[Spillway] ${MASKED_COPY}` : `${block.text.slice(0, end)}\n${MASKED_COPY}${block.text.slice(end)}`;
  const content = [...delivered.content];
  content[at] = { ...block, text };
  return { ...delivered, content };
}

/** The header of a truncated result, saying why the rest is gone. */
export function truncatedHeader(sizes: Sizes, why: string): string {
  return `[Spillway] TRUNCATED: this result was ${sizeLabel(sizes)} — ${showing(sizes.preview)}. ${why}`;
}

/** The `_meta` of a shaped result: its token count and `extra`. */
export function meta(tokens: TokenCount, extra: Record<string, unknown>): Record<string, unknown> {
  return { ...extra, 'spillway/tokens': tokens.tokens, 'spillway/tokensEstimated': tokens.estimated };
}

/** The line naming the binary blocks kept with a spilled result (also in a compressed summary); undefined when there are none. */
export function keptBinaryLine(handle: string, binary: readonly { mimeType: string }[]): string | undefined {
  if (binary.length === 0) return undefined;
  return `${binary.length} binary block(s) (${binary.map((b) => b.mimeType).join(', ')}) are kept with it: resources/read ${spillUri(handle)}.`;
}
