/** The secrets of Spillway's entry masked in a text (previews, logs, screenshots); moved out of registry.ts. */
import type { SpillwayEntry } from './types.js';

const SECRET_NAME = /token|secret|key|password|passwd|auth|credential/i;

/** Masks the entry's bearer token and secret-looking env values wherever they appear in `text`. */
export function redactEntryText(text: string, entry: SpillwayEntry): string {
  const secrets: string[] = [];
  if (entry.kind === 'http') {
    for (const v of Object.values(entry.headers)) secrets.push(v.replace(/^(Bearer|Basic|Token)\s+/i, ''));
  } else {
    for (const [k, v] of Object.entries(entry.env ?? {})) if (SECRET_NAME.test(k)) secrets.push(v);
  }
  let out = text;
  for (const s of secrets.filter((x) => x.length >= 4).sort((a, b) => b.length - a.length)) {
    const escaped = JSON.stringify(s).slice(1, -1);
    out = out.split(escaped).join('<redacted>');
  }
  return out;
}
