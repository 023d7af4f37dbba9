/**
 * Plain-text helpers shared by parts of the core that must not import each other (the spill path and
 * the compression path): counts as they appear in text for the model, and a cheap JSON sniff.
 */

/** One formatter for every count: `toLocaleString` builds a new one per call (~0.1 ms per header). */
const COUNT_FORMAT = new Intl.NumberFormat('en-US');

/** A count as the model reads it in headers: `14,246`. */
export function formatCount(n: number): string {
  return COUNT_FORMAT.format(Math.round(n));
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
