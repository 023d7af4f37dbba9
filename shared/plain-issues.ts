/**
 * A validation issue said as a sentence a user can act on (issue 14, item 6): the setting named as the
 * windows name it, the bound in its unit, instead of `spill.thresholdTokens: Too small: expected number
 * to be >=1`. Runtime-neutral: no node:*, no electron, no DOM.
 */
import type { z } from 'zod';
import { formatNumber } from './plain-text.js';

/** What the windows call a field (the last key of its path), and the unit its numbers are in. */
const FIELDS: Record<string, { label: string; unit?: [string, string] }> = {
  thresholdTokens: { label: 'spill threshold', unit: ['token', 'tokens'] },
  previewTokens: { label: 'preview', unit: ['token', 'tokens'] },
  compressMaxTokens: { label: 'compression budget', unit: ['token', 'tokens'] },
  defaultMaxOutputTokens: { label: 'compression budget', unit: ['token', 'tokens'] },
  ttlHours: { label: 'time a spilled result is kept', unit: ['hour', 'hours'] },
  quotaBytes: { label: 'space for spilled results', unit: ['byte', 'bytes'] },
  maxMessageBytes: { label: 'largest message', unit: ['byte', 'bytes'] },
  cacheTtlSeconds: { label: 'cache time', unit: ['second', 'seconds'] },
  timeoutMs: { label: 'call timeout', unit: ['ms', 'ms'] },
  requestTimeoutMs: { label: 'request timeout', unit: ['ms', 'ms'] },
  logRetentionDays: { label: 'days the log is kept', unit: ['day', 'days'] },
  toolNameMaxLength: { label: 'longest tool name', unit: ['character', 'characters'] },
  port: { label: 'port' },
  action: { label: 'action' },
  exposure: { label: 'exposure' },
  command: { label: 'command' },
  args: { label: 'arguments' },
  cwd: { label: 'working folder' },
  url: { label: 'URL' },
  baseUrl: { label: 'endpoint URL' },
  registryUrl: { label: 'registry URL' },
  type: { label: 'kind of server' },
  label: { label: 'name' },
  env: { label: 'environment variables' },
  headers: { label: 'headers' },
};

/** Maps of a tool's parameters by name, and what one entry is called (the name is the user's, not a setting). */
const PARAMS: Record<string, string> = { hiddenParams: 'hidden parameter', paramOverrides: 'override of' };

/**
 * The label of a field path (`spill.thresholdTokens` → "spill threshold", `hiddenParams.message` →
 * `hidden parameter "message"`, `headers.X-Api-Key` → `header "X-Api-Key"`); the last key when none is known.
 */
export function fieldLabel(path: readonly PropertyKey[]): string {
  const keys = path.filter((key): key is string => typeof key === 'string');
  const parent = keys.at(-2);
  if (parent !== undefined && Object.hasOwn(PARAMS, parent)) return `${PARAMS[parent]} "${keys.at(-1)}"`;
  // A server's header by its name (`servers.headers.url` is instead the address of a server whose id is headers).
  if (parent === 'headers' && keys.at(-3) !== 'servers') return `header "${keys.at(-1)}"`;
  for (let i = keys.length - 1; i >= 0; i--) {
    const known = Object.hasOwn(FIELDS, keys[i]!) ? FIELDS[keys[i]!] : undefined;
    if (known) return known.label;
  }
  return keys.at(-1) ?? 'value';
}

function amount(n: number | bigint, unit: [string, string] | undefined): string {
  const value = typeof n === 'bigint' ? n.toString() : formatNumber(n);
  if (!unit) return value;
  return `${value} ${Number(n) === 1 ? unit[0] : unit[1]}`;
}

/** Zod's own messages begin like these; a schema's own message (e.g. "must be more than 0 ms") does not. */
const ZOD_WORDING = /^(Too small|Too big|Invalid|Unrecognized|Expected)/;

/** `"a", "b" or "c"`. */
function orList(values: readonly unknown[]): string {
  const quoted = values.map((v) => JSON.stringify(v));
  return quoted.length < 2 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

/**
 * A union told apart by one field (a server's "type") that has it missing or with a value none of its forms
 * take: the field to set and its values. `input` (the object, when the parse reported it) tells a missing
 * field from a wrong one, and for a server suggests the kind its "command" or "url" points to.
 */
function missingOrUnknownKind(The: string, field: string, options: readonly unknown[], input: unknown): string {
  const set = `set "${field}" to ${orList(options)}`;
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return `${The} is missing or not known: ${set}.`;
  const object = input as Record<string, unknown>;
  const value = Object.hasOwn(object, field) ? object[field] : undefined;
  if (value === undefined) {
    const kind = suggestedKind(object, options);
    return kind ? `${The} is not set: add "${field}": "${kind.value}", as it has a ${kind.because}.` : `${The} is not set: ${set}.`;
  }
  // A short text is shown (a misspelt kind); anything else is only said to be wrong.
  const shown = typeof value === 'string' && value.length <= 20 ? ` "${value}"` : '';
  return `${The}${shown} is not one Spillway knows: ${set}.`;
}

/** The kind a server without "type" most likely is: stdio with a "command", http (or sse) with a "url". */
function suggestedKind(server: Record<string, unknown>, options: readonly unknown[]): { value: string; because: string } | undefined {
  if (typeof server.command === 'string' && options.includes('stdio')) return { value: 'stdio', because: '"command"' };
  if (typeof server.url === 'string' && options.includes('http')) {
    const sse = /\/sse\/?$/.test(server.url) && options.includes('sse');
    return sse
      ? { value: 'sse', because: '"url" ending in /sse' }
      : { value: 'http', because: '"url" (use "sse" for an older server that streams events)' };
  }
  return undefined;
}

/** One zod issue as a sentence naming the setting, with what to do about it. */
export function plainIssue(issue: z.core.$ZodIssue): string {
  const label = fieldLabel(issue.path);
  const key = issue.path.filter((k): k is string => typeof k === 'string').at(-1);
  const unit = key && Object.hasOwn(FIELDS, key) ? FIELDS[key]!.unit : undefined;
  const The = `The ${label}`;
  // A schema's own message already says it in words ("must not be negative (0 turns the cache off)").
  if (!ZOD_WORDING.test(issue.message) && issue.code !== 'unrecognized_keys') return `${The} ${issue.message}.`;
  switch (issue.code) {
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) <= 1) return `${The} cannot be empty.`;
      if (issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint') {
        if (!issue.inclusive) return `${The} must be more than ${amount(issue.minimum, unit)}.`;
        return `${The} must be at least ${amount(issue.minimum, unit)}.`;
      }
      return ZOD_WORDING.test(issue.message) ? `${The} is too short.` : `${The} ${issue.message}.`;
    case 'too_big':
      if (issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint') {
        return `${The} must be at most ${amount(issue.maximum, unit)}.`;
      }
      return ZOD_WORDING.test(issue.message) ? `${The} is too long (at most ${amount(issue.maximum, undefined)}).` : `${The} ${issue.message}.`;
    case 'invalid_type':
      // 1.5 where a count belongs is a number, just not a whole one: say so, or the sentence refuses what it asks for.
      if (issue.expected === 'int') return `${The} must be a whole number${unit ? ` of ${unit[1]}` : ''}.`;
      if (issue.expected === 'number') return `${The} must be a number${unit ? ` of ${unit[1]}` : ''}.`;
      if (issue.expected === 'string') return `${The} must be text.`;
      if (issue.expected === 'boolean') return `${The} must be on or off (true or false).`;
      if (issue.expected === 'object') return `${The} must be a set of names and values.`;
      if (issue.expected === 'array') return `${The} must be a list.`;
      return `${The} has the wrong kind of value.`;
    case 'invalid_value':
      return `${The} must be one of: ${issue.values.map((v) => String(v)).join(', ')}.`;
    case 'invalid_format':
      if (issue.format === 'url') return `${The} must be a full web address, such as https://example.com/mcp.`;
      return ZOD_WORDING.test(issue.message) ? `${The} is not in the expected form (${issue.format}).` : `${The} ${issue.message}.`;
    case 'unrecognized_keys': {
      const keys = issue.keys.map((k) => `"${k}"`).join(', ');
      return `${keys} ${issue.keys.length === 1 ? 'is not a known setting' : 'are not known settings'} here: check the spelling, or remove ${issue.keys.length === 1 ? 'it' : 'them'}.`;
    }
    case 'invalid_union':
      if (issue.discriminator !== undefined && 'options' in issue && issue.options?.length) {
        return missingOrUnknownKind(The, issue.discriminator, issue.options, issue.input);
      }
      return `${The} has a value that fits none of the forms it can take.`;
    default:
      return ZOD_WORDING.test(issue.message) ? `${The} is not valid: ${issue.message}.` : `${The} ${issue.message}.`;
  }
}
