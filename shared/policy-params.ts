/**
 * A tool policy's parameters (hidden ones, overrides) checked against the tool's own input schema: a
 * name the tool does not have, and a value of a type it does not take, are refused when the policy is
 * saved. A value of the wrong type broke the tool on every call ("expected string, received number at
 * message"). This cheap check reads only `type` and a simple `enum` (the renderer's own check: its CSP
 * forbids the code generation a JSON Schema validator needs); the hub passes a full check in its place
 * (electron/core/policy/injected-values.ts). Runtime-neutral: no node:*, no electron, no DOM.
 */

/** The part of a tool's inputSchema used to check parameter names and the types of their values. */
export interface KnownInputSchema {
  properties?: Record<string, unknown>;
  additionalProperties?: unknown;
  /** Where a parameter's `$ref` points ("#/$defs/Token"): read by the hub's full check. */
  $defs?: unknown;
  definitions?: unknown;
}

/** Names for a message, the first few of a long list. */
export function listSome(names: string[], max = 8): string {
  const shown = names.slice(0, max).join(', ');
  return names.length > max ? `${shown}, … (${names.length} in all)` : shown || '(none)';
}

/** JSON Schema's type names, each with how a user reads it. */
const KINDS = {
  string: 'text',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  object: 'a JSON object',
  array: 'a JSON list',
  null: 'null',
} as const;
/** A JSON Schema type name this check understands. */
export type ParamType = keyof typeof KINDS;
type Kind = ParamType;

function isKind(type: unknown): type is Kind {
  return typeof type === 'string' && Object.hasOwn(KINDS, type);
}

/** Whether `value` is of the JSON Schema type `kind` (the same test the hub applies when a policy is saved). */
export function fits(value: unknown, kind: Kind): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'null':
      return value === null;
  }
}

/** A JSON Schema type name as a user reads it ("a whole number"); the name itself when this check does not know it. */
export function kindWords(type: string): string {
  return isKind(type) ? KINDS[type] : type;
}

/** What a value is, in the words of KINDS ("a number", "text"). */
export function kindOf(value: unknown): string {
  if (typeof value === 'string') return KINDS.string;
  if (typeof value === 'number') return KINDS.number;
  if (typeof value === 'boolean') return KINDS.boolean;
  if (Array.isArray(value)) return KINDS.array;
  return value === null ? KINDS.null : KINDS.object;
}

/** The value as the user wrote it, cut short when long. */
export function shown(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 37)}…` : text;
}

type Primitive = string | number | boolean | null;

function isPrimitive(v: unknown): v is Primitive {
  return v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

/**
 * Why a value does not fit its parameter, in two halves: what the tool wants, which never holds the value
 * (safe to show when the value is a secret), and what the value is, which quotes it.
 */
export interface ValueMisfit {
  /** `The hidden value of "apiKey" must be a whole number`. */
  wants: string;
  /** `"abc" is text`. */
  is: string;
}

/** The whole sentence the user reads when a policy is saved. */
export const misfitMessage = (misfit: ValueMisfit): string =>
  `${misfit.wants}, as the tool expects; ${misfit.is}. Change the value, then save again.`;

/** What the tool wants, without the value: for where the value must not be shown (a hidden one, in the log). */
export const misfitWithoutValue = (misfit: ValueMisfit): string => `${misfit.wants}, as the tool expects`;

/**
 * Why `value` does not fit the parameter's schema `property` (`what` names the value, e.g. `hidden value
 * of "message"`); undefined when it fits, or when the schema says nothing this check understands.
 */
export function paramTypeProblem(what: string, value: unknown, property: unknown): ValueMisfit | undefined {
  if (typeof property !== 'object' || property === null) return undefined;
  const { type, enum: choices } = property as { type?: unknown; enum?: unknown };
  const types = Array.isArray(type) ? type : type === undefined ? [] : [type];
  // A type this check does not know ("any", a typo) leaves the value to the tool.
  if (types.length > 0 && types.every(isKind) && !types.some((kind) => fits(value, kind))) {
    const wanted = types.map((kind) => KINDS[kind]).join(' or ');
    const actual = types.includes('integer') && typeof value === 'number' ? 'a number with a fraction' : kindOf(value);
    return { wants: `The ${what} must be ${wanted}`, is: `${shown(value)} is ${actual}` };
  }
  if (Array.isArray(choices) && choices.length > 0 && choices.every(isPrimitive) && !choices.includes(value as Primitive)) {
    const listed = choices.slice(0, 8).map(shown).join(', ') + (choices.length > 8 ? ', …' : '');
    return { wants: `The ${what} must be one of ${listed}`, is: `${shown(value)} is not one of them` };
  }
  return undefined;
}

/**
 * Why an injected value does not fit its parameter `name` of the tool's input schema `schema` (`what`
 * names the value, e.g. `hidden value of "message"`); undefined when it fits or cannot be told.
 */
export type InjectedValueCheck = (what: string, name: string, value: unknown, schema: KnownInputSchema) => ValueMisfit | undefined;

/** The cheap check: the parameter's own `type` and `enum` only. */
export const checkTypeAndEnum: InjectedValueCheck = (what, name, value, schema) => paramTypeProblem(what, value, schema.properties?.[name]);

/** The first of `values` its parameter's schema does not take, and why (`what` names such a value). */
function firstMisfit(
  what: string,
  values: Record<string, unknown>,
  schema: KnownInputSchema & { properties: Record<string, unknown> },
  checkValue: InjectedValueCheck,
): { name: string; misfit: ValueMisfit } | undefined {
  for (const [name, value] of Object.entries(values)) {
    const misfit = Object.hasOwn(schema.properties, name) ? checkValue(`${what} "${name}"`, name, value, schema) : undefined;
    if (misfit) return { name, misfit };
  }
  return undefined;
}

/** The values a tool policy injects into calls, and what a message calls one of them. */
const INJECTED = [
  ['hiddenParams', 'hidden value of'],
  ['paramOverrides', 'override of'],
] as const;

/**
 * The first parameter of a tool policy (under `field`) that the tool's schema refuses: a name it does not
 * have (unless it takes any), or a value it does not take (told by `checkValue`, by default the cheap
 * check). Undefined when the schema is unknown. `withoutValue` says it without quoting the value.
 */
export function injectedParamProblem(
  field: string,
  policy: { hiddenParams?: Record<string, unknown>; paramOverrides?: Record<string, unknown> },
  schema: KnownInputSchema | undefined,
  checkValue: InjectedValueCheck = checkTypeAndEnum,
): { field: string; message: string; withoutValue: string } | undefined {
  const properties = schema?.properties;
  if (!properties) return undefined;
  const extra = schema.additionalProperties;
  const open = extra === true || (typeof extra === 'object' && extra !== null);
  for (const [key] of INJECTED) {
    const unknown = open ? undefined : Object.keys(policy[key] ?? {}).find((name) => !Object.hasOwn(properties, name));
    if (unknown !== undefined) {
      const message = `the tool has no parameter "${unknown}" (it has: ${listSome(Object.keys(properties))})`;
      return { field: `${field}.${key}.${unknown}`, message, withoutValue: `T${message.slice(1)}` };
    }
  }
  for (const [key, what] of INJECTED) {
    const misfit = firstMisfit(what, policy[key] ?? {}, { ...schema, properties }, checkValue);
    if (misfit) {
      return { field: `${field}.${key}.${misfit.name}`, message: misfitMessage(misfit.misfit), withoutValue: misfitWithoutValue(misfit.misfit) };
    }
  }
  return undefined;
}
