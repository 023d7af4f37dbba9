/**
 * READMEs fill secrets with stand-ins ("YOUR_API_KEY_HERE", "<your-token>", VS Code's
 * "${input:github_token}"). Kept as values they land masked in a password field and the user believes
 * the key is filled in, while the server gets the stand-in. So a pasted value that is a stand-in is
 * cleared and remembered, for the form to say next to that field that the real value must be typed.
 */
import type { ServerConfigInput } from '../../../shared/config.js';

/** A value cleared because the snippet held a stand-in, not a real value. */
export interface SnippetPlaceholder {
  /** Which editor the value sits in. */
  field: 'env' | 'headers';
  /** The variable or header name. */
  key: string;
  /** What the snippet had, shown to the user so they know which value was meant. */
  was: string;
}

const STAND_INS: RegExp[] = [
  /\$\{[^}]*\}/, // ${input:x}, ${env:X}, ${X}: client-side substitutions Spillway does not make
  /<[^<>]+>/, // <your-token>, Bearer <TOKEN>
  /(^|[^a-z])your[\s_-]?[a-z]/i, // YOUR_API_KEY, your-token, yourApiKey
  /[\s_-]here$/i, // API_KEY_HERE, paste key here
  /^(replace[\s_-]?me|change[\s_-]?me|todo|tbd|placeholder|secret|token|api[\s_-]?key|x{3,}|\*{3,})$/i,
  /x{6,}/i, // ghp_xxxxxxxxxxxx
  /\.\.\.|…/, // sk-...
];

/** Whether a pasted env or header value is a stand-in for the real one. */
export function isPlaceholderValue(value: string): boolean {
  const v = value.trim();
  return v !== '' && STAND_INS.some((re) => re.test(v));
}

function clear(map: Record<string, string> | undefined, field: SnippetPlaceholder['field'], found: SnippetPlaceholder[]) {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(map ?? {})) {
    if (isPlaceholderValue(value)) found.push({ field, key, was: value });
    out[key] = isPlaceholderValue(value) ? '' : value;
  }
  return out;
}

/** The config with its stand-in env and header values emptied, and which ones were. */
export function clearPlaceholders(config: ServerConfigInput): { config: ServerConfigInput; placeholders: SnippetPlaceholder[] } {
  const placeholders: SnippetPlaceholder[] = [];
  if (config.type === 'stdio') {
    if (!config.env) return { config, placeholders };
    return { config: { ...config, env: clear(config.env, 'env', placeholders) }, placeholders };
  }
  if (!config.headers) return { config, placeholders };
  return { config: { ...config, headers: clear(config.headers, 'headers', placeholders) }, placeholders };
}
