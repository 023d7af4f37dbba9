/**
 * One read_result op on a spilled text, as the hub's main thread runs it for most texts and the read
 * thread (read-thread.ts) for the largest, and for greps and queries: the same code, so the same answers.
 * The output cap and a query's TOON answer stay with the caller on the main thread (read-result.ts); the
 * view of a JSON text's lines is chosen by `viewOf` where the op runs, or given (DocumentRead.toonHeader).
 * What crosses between the threads is plain data.
 */
import { charBoundary } from '../tokens/text-cuts.js';
import { formatCount, shape } from './json-summary.js';
import { toonViewOf, type LinesView } from './read-encoding.js';
import {
  grepLines,
  grepMatches,
  headRange,
  lineRange,
  queryJson,
  readFrom,
  tailRange,
  type LineRange,
  type LineSource,
  type WholeAnswer,
} from './read-ops.js';
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
  /**
   * The view of a JSON text's lines chosen before (read-encoding.ts linesView, on either thread), so that
   * every op reads the lines the first one read: a TOON view's header (toonViewOf: that view, made again if
   * need be), or null for the JSON lines. Undefined: `viewOf` chooses.
   */
  toonHeader?: string | null;
}

export type DocumentAnswer =
  /** The text's characters and lines, and for JSON the lines describing its top level (and its TOON view's lines). */
  | { op: 'stat'; chars: number; lines: number; json: string[] }
  /**
   * head, tail and slice: the lines, under the view's header (`note`) when they are a view's. The caller
   * cuts them to its output cap on whole lines, keeping the last ones for tail (`fromEnd`).
   */
  | { op: 'lines'; note?: string; range: LineRange; fromEnd: boolean }
  /** grep, and a query's answer when it is only a note, the start of a large one, or holds numbers only its JSON can write. */
  | { op: 'text'; text: string }
  /** A whole query answer, for the caller to show as TOON or JSON. */
  | { op: 'answer'; answer: WholeAnswer }
  /** The text from `offset` (at most the asked characters; `whole` when that is all of the rest) and its length. */
  | { op: 'read'; offset: number; text: string; whole: boolean; chars: number };

/** The view a JSON text's lines are read on (read-encoding.ts): its TOON view for a table, else undefined. */
export type LinesViewOf = (doc: SpillDocument) => Promise<LinesView | undefined> | LinesView | undefined;

/**
 * `viewOf`, noting what it chose: `chosen()` is the view's header when it is a TOON view, null for the JSON
 * lines (no TOON view, or one too large to make), undefined while it was not asked.
 */
export function notingView(viewOf: LinesViewOf): { viewOf: LinesViewOf; chosen: () => string | null | undefined } {
  let chosen: string | null | undefined;
  return {
    viewOf: async (doc) => {
      const view = await viewOf(doc);
      chosen = view && view.doc !== doc ? view.header : null;
      return view;
    },
    chosen: () => chosen,
  };
}

/** Said over grep's lines of a JSON text when its TOON view had none: how to read those lines by their numbers. */
function jsonGrepNote(firstLine: number): string {
  return (
    '[No row of its TOON view matches; these are lines of its JSON text, numbered in that text. Read them with "view":"json", ' +
    `e.g. {"op":"slice","start":${firstLine},"view":"json"}: head, tail and slice without it read the TOON view.]`
  );
}

/** Answers one op on `doc`; a request the model can fix throws ReadOpError. */
export async function answerRead(doc: SpillDocument, read: DocumentRead, viewOf: LinesViewOf): Promise<DocumentAnswer> {
  const { op } = read;
  const view = async (): Promise<LinesView | undefined> => {
    if (read.contentType !== 'json' || read.toonHeader === null) return undefined;
    return read.toonHeader === undefined ? viewOf(doc) : toonViewOf(doc, read.toonHeader);
  };
  // Lines of a tabular JSON result are read on its TOON view, where each row is a line: head, tail and
  // slice, and grep too, so that the line numbers grep gives are the lines slice shows.
  // A clipped row of the TOON view is read whole by a query: an offset in the view is none in the text.
  const lined = async (take: (lines: SpillDocument, source: LineSource) => LineRange, fromEnd = false): Promise<DocumentAnswer> => {
    const v = await view();
    return v ? { op: 'lines', note: v.header, range: take(v.doc, { view: v.doc !== doc }), fromEnd } : { op: 'lines', range: take(doc, {}), fromEnd };
  };
  switch (op.op) {
    case 'stat': {
      const v = await view();
      const toon =
        v && v.doc !== doc ? [`Head, tail, slice and grep read its TOON view (one row a line): ${formatCount(v.doc.lines.length)} lines.`] : [];
      return { op: 'stat', chars: doc.text.length, lines: doc.lines.length, json: [...jsonStat(doc, read.contentType), ...toon] };
    }
    case 'head':
      return lined((d, source) => headRange(d, op.lines, source));
    case 'tail':
      return lined((d, source) => tailRange(d, op.lines, source), true);
    case 'slice':
      return lined((d, source) => lineRange(d, op.start, op.end, source));
    case 'grep': {
      const v = await view();
      // On the JSON lines (no TOON view, or one too large to make) grep needs no header: they are numbered as always.
      if (!v || v.doc === doc) return { op: 'text', text: grepLines(doc, { ...op, deadlineMs: read.deadlineMs }) };
      const onView = grepMatches(v.doc, { ...op, deadlineMs: read.deadlineMs }, { view: true });
      if (onView.total > 0) return { op: 'text', text: `${v.header}\n${onView.text}` };
      // A pattern written for the JSON (`"name": "x"`) finds nothing in the view: its JSON text is searched too.
      const onJson = grepMatches(doc, { ...op, deadlineMs: read.deadlineMs }, {});
      if (onJson.total === 0) return { op: 'text', text: `${v.header}\n${onView.text}` };
      return { op: 'text', text: `${jsonGrepNote(Number(/\n(\d+):/.exec(onJson.text)?.[1] ?? 1))}\n${onJson.text}` };
    }
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
