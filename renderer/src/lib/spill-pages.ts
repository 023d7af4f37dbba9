/**
 * What the spill viewer reads out of the read tool's answers (slice's pages, grep's matches, read's
 * chunks): plain text parsing with no imports, so tests of the hub's answers can use it too.
 */

/** One page of lines as `slice` returned it. */
export interface SpillPage {
  from: number;
  to: number;
  total: number;
  text: string;
}

/** A matching (or context) line of a search, as grep numbered it. */
export interface SpillMatch {
  line: number;
  isMatch: boolean;
  text: string;
}

const digits = (s: string) => Number(s.replace(/\D/g, ''));

/**
 * slice's answer: `Lines a-b of n:` naming the lines it holds, then those lines. A note in brackets may come
 * before the header (a view's) and after the lines (an output cap's, when long lines made the read stop
 * short of the page asked for): neither is a line of the original, so neither is shown. Pages go by the
 * header, which names the lines returned (a capped page of 100 long lines holds fewer).
 */
export function parsePage(text: string, start: number, pageLines: number, knownTotal: number): SpillPage {
  let body = text;
  while (body.startsWith('[') && body.indexOf('\n') > 0) body = body.slice(body.indexOf('\n') + 1);
  const m = /^Lines ([\d,]+)-([\d,]+) of ([\d,]+):\n?/.exec(body);
  if (!m) return { from: start, to: Math.min(start + pageLines - 1, knownTotal), total: knownTotal, text };
  const from = digits(m[1]!);
  const to = digits(m[2]!);
  const lines = body.slice(m[0].length).split('\n');
  // What follows the lines the header names is the cap's note.
  return { from, to, total: digits(m[3]!), text: lines.slice(0, to - from + 1).join('\n') };
}

/** grep's output: a summary line, then `12:` matches, `11-` context lines and `--` separators. */
export function parseGrep(text: string): { summary: string; matches: SpillMatch[] } {
  const [summary = '', ...rest] = text.split('\n');
  const matches: SpillMatch[] = [];
  for (const line of rest) {
    const m = /^(\d+)([:-])(.*)$/s.exec(line);
    if (m) matches.push({ line: Number(m[1]), isMatch: m[2] === ':', text: m[3]! });
  }
  return { summary, matches };
}

/** Splits `read`'s trailing `[characters a-b of n; …]` note from the chunk; `end` once the text is done. */
export function splitReadTail(text: string): { chunk: string; end: boolean } {
  if (/^\[offset [\d,]+ is the end of the text/.test(text)) return { chunk: '', end: true };
  const at = text.lastIndexOf('\n[');
  if (at < 0) return { chunk: text, end: true };
  return { chunk: text.slice(0, at), end: text.startsWith('\n[end of text', at) };
}
