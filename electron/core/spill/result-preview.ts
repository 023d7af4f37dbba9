/**
 * What the model reads in place of a result over its threshold: a token-accurate preview (a structural
 * summary for JSON) under a header with the sizes, and for a spilled result the handle and how to read more.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { TokenBudgetCut, TokenCount, TokenCounter } from '../tokens/token-counter.js';
import { formatCount, summarizeJson } from './json-summary.js';
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
): Promise<Preview> {
  if (view.contentType === 'json') {
    const json = view.textFromStructured ? { value: result.structuredContent } : parseJson(view.text);
    if (json) return summaryPreview(json.value, previewTokens, counter);
  }
  return start ? startPreview(start) : textPreview(view.text, previewTokens, counter);
}

/** A JSON value's structural summary, cut to the preview budget. */
export async function summaryPreview(value: unknown, previewTokens: number, counter: TokenCounter): Promise<Preview> {
  const { text, tokens } = await counter.cutToTokens(summarizeJson(value, previewTokens * 8), previewTokens);
  return { text, tokens, lines: 0, summary: true };
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
  return preview.summary
    ? `showing a structural summary (${formatCount(preview.tokens)} tokens)`
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
