/**
 * Plain-text helpers shared by parts of the core that must not import each other (the spill path and
 * the compression path): counts as they appear in text for the model, and a cheap JSON sniff.
 */

/*
 * Numbers are written by hand, not with Intl or toLocaleString: the first use of either maps ICU's locale
 * data into the process, some 9 MB of a hub that idles near 100 MB, to write commas (and a per-call
 * `toLocaleString` costs ~12 µs). The output is what `Intl.NumberFormat('en-US')` writes.
 */

/** A count as the model reads it in headers: `14,246`. */
export function formatCount(n: number): string {
  return formatNumber(Math.round(n));
}

/** A number as `en-US` writes it: digits grouped by commas, at most three decimals (`1,234.568`). */
export function formatNumber(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '∞' : '-∞';
  const sign = n < 0 || Object.is(n, -0) ? '-' : '';
  // From the shortest text that reads back as the number (as Intl rounds), written out without an exponent.
  const [, mantissa = '0', exponent = '0'] = /^([\d.]+)(?:e([+-]\d+))?$/.exec(String(Math.abs(n))) ?? [];
  const [head = '0', tail = ''] = mantissa.split('.');
  const point = head.length + Number(exponent);
  const digits = head + tail;
  const padded = point <= 0 ? '0'.repeat(1 - point) + digits : digits.padEnd(point, '0');
  const at = Math.max(point, 1);
  let whole = padded.slice(0, at);
  let fraction = padded.slice(at);
  if (fraction.length > 3) {
    const up = fraction.charCodeAt(3) >= 0x35; // '5': half rounds away from zero
    fraction = fraction.slice(0, 3);
    if (up) [whole, fraction] = splitAt(increment(whole + fraction), 3);
  }
  fraction = fraction.replace(/0+$/, '');
  return `${sign}${groupThousands(whole)}${fraction ? `.${fraction}` : ''}`;
}

/** The decimal digits plus one. */
function increment(digits: string): string {
  let i = digits.length - 1;
  while (i >= 0 && digits[i] === '9') i--;
  return i < 0 ? `1${'0'.repeat(digits.length)}` : `${digits.slice(0, i)}${String(Number(digits[i]) + 1)}${'0'.repeat(digits.length - i - 1)}`;
}

function splitAt(digits: string, decimals: number): [string, string] {
  return [digits.slice(0, digits.length - decimals) || '0', digits.slice(digits.length - decimals)];
}

function groupThousands(digits: string): string {
  let out = digits.slice(0, digits.length % 3 || 3);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return out;
}

/**
 * Orders texts as people read a list, the same on every machine whatever its locale (and without ICU):
 * letters regardless of case, punctuation before digits before letters, as `localeCompare` ordered ASCII
 * names (`archive_page` before `Search`); on a tie the lower-case one first, then code units.
 */
export function compareText(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = rank(a.charCodeAt(i)) - rank(b.charCodeAt(i));
    if (d !== 0) return d;
  }
  if (a.length !== b.length) return a.length - b.length;
  // Same letters: lower case first (as localeCompare), then by code units for any other difference.
  return a === b ? 0 : a > b ? -1 : 1;
}

/** ASCII punctuation and symbols in the order of Unicode's default collation (`_` before `-`). */
const PUNCTUATION = ' _-,;:!?.\'"()[]{}@*/\\&#%`^+<=>|~$';

/** Where a character sorts: whitespace and punctuation, then digits, then letters (either case), then the rest. */
function rank(c: number): number {
  if (c >= 0x41 && c <= 0x5a) return 0x200 + c + 0x20;
  if (c >= 0x61 && c <= 0x7a) return 0x200 + c;
  if (c >= 0x30 && c <= 0x39) return 0x100 + c;
  if (c >= 0x80) return 0x300 + c;
  const at = PUNCTUATION.indexOf(String.fromCharCode(c));
  return at === -1 ? c : 0x80 + at;
}

/** A cheap test by the first and last characters; `parseJson` decides. */
export function looksLikeJson(text: string): boolean {
  let start = 0;
  while (start < text.length && isSpace(text.charCodeAt(start))) start++;
  let end = text.length - 1;
  while (end > start && isSpace(text.charCodeAt(end))) end--;
  const first = text[start];
  const last = text[end];
  return (first === '{' && last === '}') || (first === '[' && last === ']');
}

/** The parsed value of JSON text, or undefined when it is not JSON. */
export function parseJson(text: string): { value: unknown } | undefined {
  if (!looksLikeJson(text)) return undefined;
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}
