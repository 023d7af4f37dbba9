/**
 * One read_result op on a spilled text, as the hub's main thread runs it for most texts and the read
 * thread (read-thread.ts) for the largest: the same code, so the same answers. What needs the token
 * counter (the output cap, TOON views and answers) stays with the caller on the main thread
 * (read-result.ts); what crosses between the threads is plain data.
 */
import { charBoundary } from '../tokens/text-cuts.js';
import { formatCount, shape } from './json-summary.js';
import type { LinesView } from './read-encoding.js';
import { grepLines, headLines, queryJson, readFrom, sliceLines, tailLines, type WholeAnswer } from './read-ops.js';
import type { SpillContentType } from './result-view.js';
import type { SpillDocument } from './spill-document.js';

/** An op with its arguments checked and its defaults filled in (read-result.ts). */
export type DocumentOp =
  | { op: 'stat' }
  | { op: 'head' | 'tail'; lines: number }
  | { op: 'slice'; start: number; end: number }
  | { op: 'grep'; pattern: string; caseSensitive?: boolean; context?: number; maxMatches?: number }
  /** `maxChars`: where writing the answer's JSON stops. */
  | { op: 'query'; query: string; maxChars: number }
  /** `maxChars`: the most characters handed back from `offset` (the caller cuts its chunk from them). */
  | { op: 'read'; offset: number; maxChars: number };

/** What an op needs besides its text. */
export interface DocumentRead {
  op: DocumentOp;
  contentType: SpillContentType;
  /** Cut-off for a grep or a query (default READ_DEADLINE_MS). */
  deadlineMs?: number;
}

export type DocumentAnswer =
  /** The text's characters and lines, and for JSON the lines describing its top level. */
  | { op: 'stat'; chars: number; lines: number; json: string[] }
  /** head, tail, slice and grep, and a query's answer when it is only a note or the start of a large one. */
  | { op: 'text'; text: string }
  /** A whole query answer, for the caller to show as TOON or JSON. */
  | { op: 'answer'; answer: WholeAnswer }
  /** The text from `offset` (at most the asked characters; `whole` when that is all of the rest) and its length. */
  | { op: 'read'; offset: number; text: string; whole: boolean; chars: number };

/** The view a JSON text's lines are read on (read-encoding.ts): its TOON view for a table, else undefined. */
export type LinesViewOf = (doc: SpillDocument) => Promise<LinesView | undefined> | LinesView | undefined;

/** Answers one op on `doc`; a request the model can fix throws ReadOpError. */
export async function answerRead(doc: SpillDocument, read: DocumentRead, viewOf: LinesViewOf): Promise<DocumentAnswer> {
  const { op } = read;
  // Lines of a tabular JSON result are read on its TOON view, where each row is a line.
  const lined = async (take: (lines: SpillDocument) => string): Promise<DocumentAnswer> => {
    const view = read.contentType === 'json' ? await viewOf(doc) : undefined;
    return { op: 'text', text: view ? `${view.header}\n${take(view.doc)}` : take(doc) };
  };
  switch (op.op) {
    case 'stat':
      return { op: 'stat', chars: doc.text.length, lines: doc.lines.length, json: jsonStat(doc, read.contentType) };
    case 'head':
      return lined((d) => headLines(d, op.lines));
    case 'tail':
      return lined((d) => tailLines(d, op.lines));
    case 'slice':
      return lined((d) => sliceLines(d, op.start, op.end));
    case 'grep':
      return { op: 'text', text: grepLines(doc, { ...op, deadlineMs: read.deadlineMs }) };
    case 'query': {
      const answer = queryJson(doc, op.query, { deadlineMs: read.deadlineMs, maxChars: op.maxChars });
      return typeof answer === 'string' ? { op: 'text', text: answer } : { op: 'answer', answer };
    }
    case 'read': {
      const { offset, text: rest } = readFrom(doc, op.offset);
      const text = rest.length <= op.maxChars ? rest : rest.slice(0, charBoundary(rest, op.maxChars));
      return { op: 'read', offset, text, whole: text.length === rest.length, chars: doc.text.length };
    }
  }
}

/** stat's lines about a JSON text's top level: an array's length, or an object's keys with their shapes. */
function jsonStat(doc: SpillDocument, contentType: SpillContentType): string[] {
  if (contentType !== 'json' && contentType !== 'mixed') return [];
  const json = doc.json;
  if (json && Array.isArray(json.value)) return [`JSON: array of ${formatCount(json.value.length)} items`];
  if (!json || typeof json.value !== 'object' || json.value === null) return [];
  const record = json.value as Record<string, unknown>;
  return [
    'JSON top-level keys:',
    ...Object.keys(record)
      .slice(0, 200)
      .map((key) => `  ${JSON.stringify(key)}: ${shape(record[key])}`),
  ];
}
