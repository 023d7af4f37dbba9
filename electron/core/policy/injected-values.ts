/**
 * The hub's check of an injected value (a hidden parameter's value, an override) against the tool's own
 * input schema, with a real JSON Schema validator (Ajv): `anyOf`, bounds, patterns, nested objects and
 * `$ref`s into the schema's `$defs` count, not only `type` and `enum` (shared/policy-params.ts, the
 * renderer's cheap check). A value the schema refuses would make every call of the tool fail, so the
 * policy is refused when it is saved, in plain words naming where and what the schema wants.
 */
import { Ajv, type ErrorObject } from 'ajv';
import type { InjectedValueCheck, KnownInputSchema } from '../../../shared/policy.js';
import { checkTypeAndEnum, kindOf, kindWords, listSome, shown, type ValueMisfit } from '../../../shared/policy-params.js';
import { compileRegex } from '../text/linear-regex.js';

/**
 * The upstream's `pattern`s run on the linear-time engine (text/linear-regex.ts), not V8's: a careless or
 * hostile pattern such as `^(\w+\s?)*$` would otherwise backtrack for minutes on the hub's main thread.
 * A pattern that engine cannot take makes the schema unreadable here: the cheap check answers then.
 */
const linearRegExp = Object.assign((source: string) => compileRegex(source), { code: 'linearRegExp' });

/** The key the schema is added under, so that the parameter's part is found by a JSON pointer into it. */
const ROOT = 'tool';

/** Keywords that only combine other checks: what their branches said is the news. */
const COMBINERS = new Set(['anyOf', 'oneOf']);

/**
 * Why `value` does not fit the parameter `name` of `schema`; undefined when it fits. A schema that cannot
 * be read (a `$ref` to elsewhere, a pattern for another regex engine, a broken schema) still gets the
 * cheap check of its `type` and `enum`; beyond that the tool is left to say.
 */
export const injectedValueProblem: InjectedValueCheck = (what, name, value, schema) => {
  const errors = validate(name, value, schema);
  if (errors === undefined) return checkTypeAndEnum(what, name, value, schema);
  return errors.length > 0 ? explain(what, name, value, errors) : undefined;
};

/** Ajv's errors for `value` against the parameter's schema; undefined when it cannot be compiled. */
function validate(name: string, value: unknown, schema: KnownInputSchema): ErrorObject[] | undefined {
  const property = schema.properties?.[name];
  if (property === undefined) return undefined;
  const kept = { $defs: schema.$defs, definitions: schema.definitions };
  // The parameter's schema alone first, beside what the tool's schema keeps for `$ref`s ("#/$defs/..."
  // resolves): another parameter that cannot be read (a `$ref` to another document) does not stop the
  // check. Then with every parameter, for a `$ref` to another one ("#/properties/from").
  for (const properties of [{ [name]: property }, schema.properties]) {
    const errors = validateIn({ ...kept, properties }, name, value);
    if (errors) return errors;
  }
  return undefined;
}

function validateIn(root: Record<string, unknown>, name: string, value: unknown): ErrorObject[] | undefined {
  const defined = Object.fromEntries(Object.entries(root).filter(([, v]) => v !== undefined));
  // Saves are rare: a fresh validator each time keeps nothing compiled from old schemas.
  const ajv = new Ajv({ strict: false, validateSchema: false, allErrors: true, logger: false, code: { regExp: linearRegExp } });
  try {
    ajv.addSchema(defined, ROOT);
    const check = ajv.getSchema(`${ROOT}#/properties/${pointerPart(name)}`);
    if (!check) return undefined;
    return check(value) ? [] : (check.errors ?? []);
  } catch {
    return undefined;
  }
}

/** A name as one part of a JSON pointer (RFC 6901), in a URI fragment. */
function pointerPart(name: string): string {
  return encodeURIComponent(name.replaceAll('~', '~0').replaceAll('/', '~1'));
}

/** The plain message for what the schema refused (the deepest place, when there are several). */
function explain(what: string, name: string, value: unknown, errors: ErrorObject[]): ValueMisfit {
  // The deepest first: a nested value the schema refuses says more than its object missing a field.
  const first =
    errors
      .filter((e) => !COMBINERS.has(e.keyword))
      .reduce<ErrorObject | undefined>((deepest, e) => (deepest && depth(deepest) >= depth(e) ? deepest : e), undefined) ?? errors[0]!;
  // An error inside anyOf/oneOf at the same place: the value may be any of the branches.
  const combiner = errors.find(
    (e) => COMBINERS.has(e.keyword) && e.instancePath === first.instancePath && first.schemaPath.startsWith(`${e.schemaPath}/`),
  );
  const branches = combiner
    ? errors.filter((e) => !COMBINERS.has(e.keyword) && e.instancePath === first.instancePath && e.schemaPath.startsWith(`${combiner.schemaPath}/`))
    : [first];
  const rules = [...new Set(branches.map(rule))];
  // "be a whole number or null"; rules of other kinds each keep their verb.
  const wanted = rules.every((r) => r.startsWith('be ')) ? `be ${rules.map((r) => r.slice(3)).join(' or ')}` : rules.join(', or ');
  const there = valueAt(value, first.instancePath);
  const actual = branches.every((e) => e.keyword === 'type') ? `${shown(there)} is ${kindOf(there)}` : `it is ${shown(there)}`;
  const subject = first.instancePath === '' ? `The ${what}` : `In the ${what}, ${name}${pathText(first.instancePath)}`;
  return { wants: `${subject} must ${wanted}`, is: actual };
}

/** What one error asks for, after "must" ("be at most 10"). */
function rule(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type':
      return `be ${String(p.type)
        .split(',')
        .map((t) => kindWords(t))
        .join(' or ')}`;
    case 'enum':
      return `be one of ${listSome(((p.allowedValues as unknown[] | undefined) ?? []).map(shown))}`;
    case 'const':
      return `be ${shown(p.allowedValue)}`;
    case 'maximum':
      return `be at most ${String(p.limit)}`;
    case 'minimum':
      return `be at least ${String(p.limit)}`;
    case 'exclusiveMaximum':
      return `be less than ${String(p.limit)}`;
    case 'exclusiveMinimum':
      return `be more than ${String(p.limit)}`;
    case 'multipleOf':
      return `be a multiple of ${String(p.multipleOf)}`;
    case 'maxLength':
      return `be at most ${String(p.limit)} characters long`;
    case 'minLength':
      return `be at least ${String(p.limit)} characters long`;
    case 'pattern':
      return `match the pattern ${String(p.pattern)}`;
    case 'format':
      return `be a valid ${String(p.format)}`;
    case 'maxItems':
      return `have at most ${String(p.limit)} items`;
    case 'minItems':
      return `have at least ${String(p.limit)} items`;
    case 'uniqueItems':
      return 'have no two items the same';
    case 'required':
      return `have the field "${String(p.missingProperty)}"`;
    case 'additionalProperties':
      return `not have the field "${String(p.additionalProperty)}"`;
    case 'false schema':
      return 'not be given';
    default:
      // Ajv's own words ("must NOT be valid", "must match a schema in anyOf").
      return `fit the tool's schema (${error.message ?? error.keyword})`;
  }
}

/** How deep in the value an error is. */
function depth(error: ErrorObject): number {
  return pointerParts(error.instancePath).length;
}

/** The parts of a JSON pointer into the value ("/0/name" → ["0", "name"]). */
function pointerParts(pointer: string): string[] {
  return pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** A place in the value as a reader writes it: `[0].name`, `["a b"]`. */
function pathText(pointer: string): string {
  return pointerParts(pointer)
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : /^[A-Za-z_$][\w$]*$/.test(part) ? `.${part}` : `[${JSON.stringify(part)}]`))
    .join('');
}

/** The part of `value` at a JSON pointer. */
function valueAt(value: unknown, pointer: string): unknown {
  let at = value;
  for (const part of pointerParts(pointer)) {
    at = typeof at === 'object' && at !== null && Object.hasOwn(at, part) ? (at as Record<string, unknown>)[part] : undefined;
  }
  return at;
}
