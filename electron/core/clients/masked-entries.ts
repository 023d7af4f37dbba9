/**
 * Client files as the UI and the control API show them: secrets masked. A client's file holds other
 * servers' credentials (`postgresql://alice:pass@…` in args, `?api_key=…` in a URL) and Spillway's own
 * bearer token; none of them leaves the hub in clear. What gets written or imported keeps the real values:
 * these functions only shape what is shown.
 */
import { REDACTED, redactSecrets, redactText } from '../log/redact.js';
import { swapSecretParams } from '../secrets/url-secrets.js';
import { redactEntryText } from './registry.js';
import type { ImportCandidate, ServerSpec, SpillwayEntry } from './types.js';

/** An address with its credential parameters and secret-shaped text masked, as server listings show it. */
function maskedUrl(url: string): string {
  return redactText(swapSecretParams(url, (_, value) => (value === '' ? undefined : REDACTED)));
}

/** A server a client's file offers for import, as the import dialog shows it. */
export function maskedCandidate(c: ImportCandidate): { command: string; args: string[] } | { url: string } {
  return c.kind === 'stdio' ? { command: redactText(c.command), args: redactSecrets(c.args) } : { url: maskedUrl(c.url) };
}

/** A string as it appears inside a JSON (or TOML basic) string literal. */
const quoted = (s: string) => JSON.stringify(s).slice(1, -1);

/**
 * An entry's text as its file has it, masked: its bearer token and secret-named env values as the connect
 * preview masks them, then credentials in its address, command and arguments.
 */
export function maskedEntryText(text: string, spec: ServerSpec): string {
  const entry: SpillwayEntry =
    spec.transport === 'stdio' || !spec.url
      ? { kind: 'stdio', command: spec.command ?? '', args: spec.args ?? [], ...(spec.env ? { env: spec.env } : {}) }
      : { kind: 'http', url: spec.url, headers: spec.headers ?? {} };
  let out = redactEntryText(text, entry);
  const shown: [raw: string, masked: string][] = [];
  if (spec.url) shown.push([spec.url, maskedUrl(spec.url)]);
  for (const s of [spec.command, ...(spec.args ?? [])]) if (s) shown.push([s, redactText(s)]);
  for (const [raw, masked] of shown) if (raw !== masked) out = out.split(quoted(raw)).join(quoted(masked));
  return out;
}
