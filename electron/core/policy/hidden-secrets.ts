/**
 * Which of a tool policy's hidden parameters are secrets: the texts under a secret name (the log's
 * secret names, and the few names that mean a credential such as `key` or `license_key`; not settings
 * such as `project_key`) and those of a known credential's shape (`sk-…`). Other hidden values are
 * settings. What hides them, and how, is for their users: a call's result stage (call/hidden-values.ts),
 * the event log (policy-runtime.ts's hiddenParamTexts), an upstream's relayed log messages (call/relay.ts).
 */
import { hasKnownTokenShape, isSensitiveKey } from '../log/redact.js';

/** One secret text of a policy's hidden parameters, and the parameter it is (or is inside of). */
export interface HiddenSecret {
  text: string;
  param: string;
}

/**
 * The secret texts of a tool policy's hidden parameters, at any depth of their values (not keys, numbers
 * or booleans): those under a secret name (secretName) and those of a known credential's shape (`sk-…`).
 * One notion for all that hides them: a call's result stage replaces them (call/hidden-values.ts), the
 * event log masks them (policy-runtime.ts's hiddenParamTexts), an upstream's relayed log messages are
 * cleaned of them (call/relay.ts). Other hidden values are settings (`owner`, `project_key`).
 */
export function hiddenSecretTexts(hiddenParams: Record<string, unknown> | undefined): HiddenSecret[] {
  const out: HiddenSecret[] = [];
  for (const [name, value] of Object.entries(hiddenParams ?? {})) {
    forEachText(value, secretName(name), (text, secret) => {
      if (secret || hasKnownTokenShape(text)) out.push({ text, param: name });
    });
  }
  return out;
}

/**
 * Names (lower-cased, letters and digits only) that mean a credential although the log's secret names
 * (redact.ts) do not cover them. Kept short and exact on purpose: many settings end in "key" too
 * (`project_key`, `sort_key`, `partition_key`, `primary_key`), and they are not secrets.
 */
const KEY_NAMES = new Set(['key', 'accesskey', 'licensekey', 'authkey', 'clientkey']);

/** A key naming a secret: what the log masks (`token`, `password`, `auth`, `api_key`, ...), or one of KEY_NAMES. */
function secretName(key: string): boolean {
  return isSensitiveKey(key) || KEY_NAMES.has(key.toLowerCase().replace(/[^a-z0-9]/g, ''));
}

const MAX_DEPTH = 64;

/** Every text in a hidden value, at any depth, with whether a key on its way names a secret. */
function forEachText(value: unknown, secret: boolean, fn: (text: string, secret: boolean) => void, depth = 0): void {
  if (typeof value === 'string') fn(value, secret);
  else if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return;
  else if (Array.isArray(value)) for (const item of value) forEachText(item, secret, fn, depth + 1);
  else for (const [key, item] of Object.entries(value)) forEachText(item, secret || secretName(key), fn, depth + 1);
}
