/**
 * head, tail and slice answers cut to the output cap on whole lines. Cut as text, an answer kept its start:
 * tail's last lines, the ones asked for, were never shown, and its "Lines a-b" header named lines the answer
 * did not hold, so the window's viewer paged past them (audit s15). Here the most whole lines that fit are
 * kept, the last ones for tail, under a header naming them, with the call that reads on.
 */
import type { TokenCounter } from '../tokens/token-counter.js';
import { formatCount } from './json-summary.js';
import { linesText, type LineRange } from './read-ops.js';

export interface LinesAnswer {
  /** The view's header, said above the lines ("[Lines of the result as TOON: …]"). */
  note?: string;
  range: LineRange;
  /** tail: keep the last lines. */
  fromEnd: boolean;
  /**
   * The view the lines were read in when it is not the default ("view":"json": a table's JSON lines, not
   * its TOON view's): the call that reads on names it, or it would read the other view's lines (audit s21).
   */
  view?: 'json';
}

/** The answer whole when it is within `cap` tokens, else the most whole lines within it and a note saying what was left out. */
export async function cappedLines(counter: TokenCounter, answer: LinesAnswer, cap: number): Promise<string> {
  const { range } = answer;
  const whole = withNote(answer.note, linesText(range));
  if (await counter.isWithin(whole, cap)) return whole;
  const n = range.lines.length;
  // The most lines that fit, by halving: all n do not.
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (await counter.isWithin(partText(answer, mid, cap), cap)) lo = mid;
    else hi = mid - 1;
  }
  if (lo > 0) return partText(answer, lo, cap);
  // Not even one line fits (a cap below a clipped line's 2,000 characters): its start, cut mid-line.
  const first = partText(answer, 1, cap);
  return `${await counter.truncateToTokens(first, cap)}\n[output capped at ${formatCount(cap)} tokens inside a line; read it with op "read"]`;
}

/** `count` lines of the answer (its last ones for tail), with the note saying which were shown and how to read the others. */
function partText(answer: LinesAnswer, count: number, cap: number): string {
  const { range, fromEnd } = answer;
  const asked = { from: range.start, to: range.start + range.lines.length - 1 };
  const lines = fromEnd ? range.lines.slice(range.lines.length - count) : range.lines.slice(0, count);
  const start = fromEnd ? asked.to - count + 1 : asked.from;
  const end = start + count - 1;
  const rest = fromEnd ? { start: asked.from, end: start - 1 } : { start: end + 1, end: asked.to };
  const shown = `${fromEnd ? 'the last ' : ''}${formatCount(count)} of the ${formatCount(asked.to - asked.from + 1)} asked for are shown (whole lines)`;
  const view = answer.view === undefined ? '' : `,"view":${JSON.stringify(answer.view)}`;
  const next = `{"op":"slice","start":${rest.start},"end":${rest.end}${view}}`;
  const note = `[output capped at ${formatCount(cap)} tokens; ask for fewer lines: ${shown}; ${fromEnd ? 'the lines before them' : 'the rest'}: ${next}]`;
  return `${withNote(answer.note, linesText({ start, total: range.total, lines }))}\n${note}`;
}

function withNote(note: string | undefined, text: string): string {
  return note === undefined ? text : `${note}\n${text}`;
}
