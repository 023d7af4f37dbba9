/**
 * Where a text may be cut. Pure functions without imports or outside references: the tokenizer thread
 * runs them too, from their source text (see tokenizer-thread.ts).
 */

/** Moves `index` back off the middle of a surrogate pair. */
export function charBoundary(text: string, index: number): number {
  if (index <= 0 || index >= text.length) return Math.max(0, Math.min(index, text.length));
  const before = text.charCodeAt(index - 1);
  return before >= 0xd800 && before <= 0xdbff ? index - 1 : index;
}

/** `end`, moved back to just before the last line break if that keeps at least half of it. */
export function lineCut(text: string, end: number): number {
  if (end >= text.length) return text.length;
  if (text.charCodeAt(end) === 10) return end;
  const newline = text.lastIndexOf('\n', end - 1);
  return newline >= end / 2 ? newline : end;
}

/**
 * The last index `p` in `(from, to]` where the tokenizer's pre-split surely breaks the text, or -1: just
 * after a line break followed by an ASCII letter or digit, or at a space between two ASCII letters. No
 * pre-split piece of o200k_base or cl100k_base spans such a point, and BPE works within pieces, so the
 * token count of a text is the sum of the counts of its parts cut there (test/unit/tokens-counter.test.ts
 * checks this on random texts). Big texts are counted in such parts, and previews read only a prefix.
 */
export function pieceBoundary(text: string, from: number, to: number): number {
  const alnum = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
  const letter = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
  if (to > text.length) to = text.length;
  if (from < 0) from = 0;
  if (to <= from) return -1;
  for (let i = text.lastIndexOf('\n', to - 1); i >= from && i >= 0; i = i > 0 ? text.lastIndexOf('\n', i - 1) : -1) {
    if (alnum(text.charCodeAt(i + 1))) return i + 1;
  }
  for (let i = text.lastIndexOf(' ', to); i > from; i = text.lastIndexOf(' ', i - 1)) {
    if (letter(text.charCodeAt(i - 1)) && letter(text.charCodeAt(i + 1))) return i;
  }
  return -1;
}

/**
 * `text` cut into parts wherever a run of word characters (ASCII letters, or anything past ASCII that is
 * not a space) or of whitespace grows past `maxRun`, or undefined when no run does (the common case: no
 * copy). The encoder's byte-pair merge is quadratic in the length of one pre-split piece — 160,000 `a`s
 * took 13.5 s, and the thread answers nothing meanwhile — so such runs are counted in parts: linear, and
 * off by at most a token or so per cut, on text (a hash, a run of one letter) that no one reads as words.
 */
export function splitLongRuns(text: string, maxRun: number): string[] | undefined {
  const kind = (c: number): number => {
    if (c === 32 || (c >= 9 && c <= 13)) return 1; // whitespace
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 0x80 && c !== 0xa0 && c !== 0x3000)) return 2; // word
    return 0;
  };
  let parts: string[] | undefined;
  let from = 0;
  let run = 0;
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    const k = kind(text.charCodeAt(i));
    run = k !== 0 && k === last ? run + 1 : 1;
    last = k;
    if (k === 0 || run <= maxRun) continue;
    // Cut before this character (never inside a surrogate pair), and start counting the run again.
    const before = text.charCodeAt(i - 1);
    const cut = before >= 0xd800 && before <= 0xdbff ? i - 1 : i;
    if (cut > from) {
      (parts ??= []).push(text.slice(from, cut));
      from = cut;
    }
    run = i - cut + 1;
  }
  if (!parts) return undefined;
  parts.push(text.slice(from));
  return parts;
}
