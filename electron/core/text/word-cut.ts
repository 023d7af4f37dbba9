/**
 * A text cut to a length where it does not end in part of a word. Messages that quote a server (its
 * error page, its stderr) are cut before they are masked for secrets, which match by whole value: a cut
 * through a token would leave its head, unmasked (audit s13, secrets). A word longer than the whole
 * budget is cut anyway.
 */
export function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max);
  // The character after the cut is part of the same word when neither side of the cut is a space.
  if (/\s/.test(text[max]!) || /\s$/.test(head)) return head.trimEnd();
  const kept = head.replace(/\S+$/, '').trimEnd();
  return kept.length > 0 ? kept : head;
}
