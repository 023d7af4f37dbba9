/**
 * A server's env and header values as the control API shows them: every one masked, whatever its key
 * (`GITHUB_PAT`, `X-Custom-Auth`: issue 13, item 12), and so are credentials in its address. The edit
 * form gets the masked values and sends them back unchanged, which keeps the stored ones
 * (restoreMaskedSecrets).
 */
import type { ServerConfig } from '../../../shared/config.js';
import { SECRET_REF } from '../../../shared/config.js';
import { REDACTED, redactSecrets } from '../log/redact.js';
import { swapSecretParams, urlSecretValues } from '../secrets/url-secrets.js';

/** Every non-empty value of a map masked (an empty value stays empty: "not set" remains visible). */
function maskValues(map: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(map).map(([k, v]) => [k, v === '' ? v : REDACTED]));
}

/** A server's config as lists and answers show it: env and header values masked, secret-shaped text too. */
export function maskServerSecrets(config: ServerConfig): ServerConfig {
  const masked: ServerConfig =
    config.type === 'stdio'
      ? { ...config, env: maskValues(config.env) }
      : {
          ...config,
          headers: maskValues(config.headers),
          url: swapSecretParams(config.url, (_, value) => (value === '' || value === SECRET_REF ? undefined : REDACTED)),
        };
  return redactSecrets(masked);
}

/** Whether a value is a masked one as some list showed it (`***`, `••••`, `[redacted]`). */
const MASKED = /^•+$|^\*{3,}$|\[redacted\]/i;

/** Values the list showed masked and the user sent back unchanged keep what was stored. */
export function restoreMaskedSecrets(next: ServerConfig, before: ServerConfig | undefined): ServerConfig {
  if (!before) return next;
  const keep = (a: Record<string, string>, b: Record<string, string>) =>
    Object.fromEntries(Object.entries(a).map(([k, v]) => [k, MASKED.test(v) && Object.hasOwn(b, k) ? b[k] : v]));
  if (next.type === 'stdio' && before.type === 'stdio') return { ...next, env: keep(next.env, before.env) };
  if (next.type !== 'stdio' && before.type !== 'stdio') {
    const stored = urlSecretValues(before.url);
    const url = swapSecretParams(next.url, (param, value) => (MASKED.test(value) ? stored.get(param) : undefined));
    return { ...next, headers: keep(next.headers, before.headers), url };
  }
  return next;
}
