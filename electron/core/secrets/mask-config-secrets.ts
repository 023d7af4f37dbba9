/**
 * A config file's text with its secret values masked, for the backup kept of a file Spillway rewrites
 * into its own form (an `mcpServers` file, an older version): the values move into the secret store at
 * start, and the backup, which stays, must not keep them in plain text (issue 15). Masked as the secret
 * store takes them: every non-empty env and header value, credentials in an address (a parameter named
 * like one, a user name and password), secret words of a command line, the compression API key. Both forms are read: `mcpServers`
 * entries (url, serverUrl, httpUrl) and Spillway's `servers`.
 */
import { maskUrlSignIn, SECRET_REF } from '../../../shared/config.js';
import { secretWordAt } from '../log/redact.js';
import { splitUrlSecrets } from './url-secrets.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A copy of a parsed config with the secrets masked, and whether anything was. */
class Masker {
  changed = false;

  value(value: unknown): unknown {
    if (typeof value !== 'string' || value === '' || value === SECRET_REF) return value;
    this.changed = true;
    return SECRET_REF;
  }

  url(value: unknown): unknown {
    if (typeof value !== 'string') return value;
    const masked = maskUrlSignIn(splitUrlSecrets(value).url, SECRET_REF);
    if (masked !== value) this.changed = true;
    return masked;
  }

  /** Each value of a map (env, headers); fromEntries keeps a `__proto__` name an own key. */
  map(value: unknown): unknown {
    return isObject(value) ? Object.fromEntries(Object.entries(value).map(([key, v]) => [key, this.value(v)])) : value;
  }

  server(entry: unknown): unknown {
    if (!isObject(entry)) return entry;
    const out: Json = { ...entry };
    for (const key of ['env', 'headers'] as const) if (Object.hasOwn(out, key)) out[key] = this.map(out[key]);
    for (const key of ['url', 'serverUrl', 'httpUrl'] as const) if (Object.hasOwn(out, key)) out[key] = this.url(out[key]);
    if (Array.isArray(out.args)) out.args = this.args(out.args);
    return out;
  }

  /** The words of a command line that hold a secret, as the store takes them (secretArgsToEnv). */
  args(words: unknown[]): unknown[] {
    const strings = words.map((w) => (typeof w === 'string' ? w : ''));
    return words.map((w, i) => (typeof w === 'string' && secretWordAt(strings, i) ? this.value(w) : w));
  }

  servers(value: unknown): unknown {
    return isObject(value) ? Object.fromEntries(Object.entries(value).map(([id, entry]) => [id, this.server(entry)])) : value;
  }

  config(raw: Json): Json {
    const out: Json = { ...raw };
    for (const key of ['mcpServers', 'servers'] as const) if (Object.hasOwn(out, key)) out[key] = this.servers(out[key]);
    const settings = out.settings;
    if (isObject(settings) && isObject(settings.compression) && Object.hasOwn(settings.compression, 'apiKey')) {
      out.settings = { ...settings, compression: { ...settings.compression, apiKey: this.value(settings.compression.apiKey) } };
    }
    return out;
  }
}

/**
 * The text with its secret values replaced by `<secret>` (two-space JSON), or undefined when it holds
 * none (the text can then be kept byte for byte) or is not a JSON object.
 */
export function maskConfigSecrets(text: string): string | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    return undefined;
  }
  if (!isObject(raw)) return undefined;
  const masker = new Masker();
  const masked = masker.config(raw);
  return masker.changed ? `${JSON.stringify(masked, undefined, 2)}\n` : undefined;
}
