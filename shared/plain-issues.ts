/**
 * A validation issue said as a sentence a user can act on (issue 14, item 6): the setting named as the
 * windows name it, the bound in its unit, instead of `spill.thresholdTokens: Too small: expected number
 * to be >=1`. Runtime-neutral: no node:*, no electron, no DOM.
 */
import type { z } from 'zod';

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
 * `hidden parameter "message"`); the last key when none is known.
 */
export function fieldLabel(path: readonly PropertyKey[]): string {
  const keys = path.filter((key): key is string => typeof key === 'string');
  const parent = keys.at(-2);
  if (parent !== undefined && Object.hasOwn(PARAMS, parent)) return `${PARAMS[parent]} "${keys.at(-1)}"`;
  for (let i = keys.length - 1; i >= 0; i--) {
    const known = Object.hasOwn(FIELDS, keys[i]!) ? FIELDS[keys[i]!] : undefined;
    if (known) return known.label;
  }
  return keys.at(-1) ?? 'value';
}

function amount(n: number | bigint, unit: [string, string] | undefined): string {
  const value = typeof n === 'bigint' ? n.toString() : n.toLocaleString('en-US');
  if (!unit) return value;
  return `${value} ${Number(n) === 1 ? unit[0] : unit[1]}`;
}

/** Zod's own messages begin like these; a schema's own message (e.g. "must be more than 0 ms") does not. */
const ZOD_WORDING = /^(Too small|Too big|Invalid|Unrecognized|Expected)/;

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
      if (issue.expected === 'int' || issue.expected === 'number') return `${The} must be a number${unit ? ` of ${unit[1]}` : ''}.`;
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
      return `${The} has a value that fits none of the forms it can take.`;
    default:
      return ZOD_WORDING.test(issue.message) ? `${The} is not valid: ${issue.message}.` : `${The} ${issue.message}.`;
  }
}
