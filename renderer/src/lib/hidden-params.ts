/**
 * Hidden parameters as the policy editor shows and reads them. The text typed for a value becomes the value
 * Spillway injects according to the parameter's type in the tool's own input schema: "12345" stays text for
 * a string parameter (read as the number 12345 it would break every call), a number parameter gets the
 * number, and a value that does not fit its type is refused here with a sentence. Without a known type the
 * text is read as JSON when it parses, and as text otherwise.
 */
import type { ToolSummary } from '../../../shared/api.js';
import type { KnownInputSchema } from '../../../shared/policy.js';
import { fits, type ParamType } from '../../../shared/policy-params.js';

/** A tool as the editor gets it; `inputSchema` is the upstream's own, where the hub sends it. */
export type ToolWithSchema = ToolSummary & { inputSchema?: KnownInputSchema };

export type ParamKind = Exclude<ParamType, 'null'>;

const KINDS: readonly string[] = ['string', 'number', 'integer', 'boolean', 'object', 'array'];

/** A parameter's JSON type in the tool's input schema (`["string", "null"]` is a string); undefined when unknown. */
export function paramKind(schema: KnownInputSchema | undefined, name: string): ParamKind | undefined {
  const property = schema?.properties && Object.hasOwn(schema.properties, name) ? schema.properties[name] : undefined;
  if (typeof property !== 'object' || property === null) return undefined;
  const type = (property as { type?: unknown }).type;
  const types = Array.isArray(type) ? type.filter((t) => t !== 'null') : [type];
  return types.length === 1 && typeof types[0] === 'string' && KINDS.includes(types[0]) ? (types[0] as ParamKind) : undefined;
}

/** What the value field suggests typing, by the parameter's type. */
export function paramPlaceholder(kind: ParamKind | undefined): string {
  switch (kind) {
    case 'string':
      return 'text';
    case 'number':
    case 'integer':
      return 'a number';
    case 'boolean':
      return 'true or false';
    case 'object':
      return 'a JSON object';
    case 'array':
      return 'a JSON list';
    default:
      return 'value (JSON or text)';
  }
}

type Parsed = { ok: true; value: unknown } | { ok: false; message: string };

function json(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/** The value typed for parameter `name`, read by its type; a sentence saying what to type when it does not fit. */
export function parseParamValue(name: string, text: string, kind: ParamKind | undefined): Parsed {
  if (text.trim() === '') {
    return { ok: false, message: `Type a value for “${name}”: clients no longer send this parameter, so Spillway sends this value in its place.` };
  }
  if (kind === 'string') return { ok: true, value: text };
  const parsed = json(text.trim());
  if (kind === undefined) return { ok: true, value: parsed ? parsed.value : text };
  const value = parsed?.value;
  if (fits(value, kind)) return { ok: true, value };
  const wanted: Record<Exclude<ParamKind, 'string'>, string> = {
    number: 'a number, such as 10',
    integer: 'a whole number, such as 10',
    boolean: 'true or false',
    object: 'a JSON object, such as {"key": "value"}',
    array: 'a JSON list, such as ["a", "b"]',
  };
  return { ok: false, message: `“${name}” takes ${wanted[kind]}. Change the value, then save again.` };
}

/** The text the editor shows for a stored value, which `parseParamValue` reads back to the same value. */
export function paramText(value: unknown, kind: ParamKind | undefined): string {
  if (typeof value !== 'string') return JSON.stringify(value);
  if (kind === 'string') return value;
  // Without a type, text that would read as JSON ("12345", "true") is shown quoted so it stays text.
  return kind === undefined && json(value.trim()) === undefined && value.trim() !== '' ? value : JSON.stringify(value);
}
