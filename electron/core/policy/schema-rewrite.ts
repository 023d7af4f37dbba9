/**
 * What a policy changes on the way in and out of a tool: the definition clients see (description
 * override, hidden parameters removed) and the arguments forwarded upstream (overrides, hidden values).
 * Pure; never mutates the upstream's tool or the client's arguments.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { EffectiveValues } from '../../../shared/policy.js';

export type ExposurePolicy = Pick<EffectiveValues, 'description' | 'hiddenParams'>;
export type ArgumentPolicy = Pick<EffectiveValues, 'hiddenParams' | 'paramOverrides'>;

/**
 * The tool as clients see it: the description override (when set) and the hidden parameters taken out
 * of `inputSchema.properties` and `required`, also inside its `anyOf`/`oneOf`/`allOf` branches (see
 * withoutHidden). Hidden parameters are top-level argument names; a nested property that happens to
 * share a name is left alone. `outputSchema` is not touched here.
 */
export function exposeTool(upstream: Tool, policy: ExposurePolicy): Tool {
  const exposed: Tool = { ...upstream };
  if (policy.description !== null) exposed.description = policy.description;
  const hidden = new Set(Object.keys(policy.hiddenParams));
  if (hidden.size === 0) return exposed;
  exposed.inputSchema = withoutHidden(upstream.inputSchema, hidden, 0) as Tool['inputSchema'];
  return exposed;
}

/** The keywords whose branches describe the same arguments object as the schema that holds them. */
const BRANCH_KEYWORDS = ['anyOf', 'oneOf', 'allOf'] as const;

/** How deep branches inside branches are followed; deeper ones are passed on as they are. */
const MAX_BRANCH_DEPTH = 8;

/**
 * A copy of a schema for the arguments object without the hidden names in its `properties` and
 * `required`, and the same in each `anyOf`/`oneOf`/`allOf` branch (and branches of those): a union of
 * argument shapes lists a parameter in every branch, and a model must not see it there either. A branch
 * left with nothing (`{ required: ["token"] }` becomes `{}`) stays: an empty schema is valid and accepts
 * any arguments, which is right once the hub supplies the hidden value. Other keywords (`not`, `if`,
 * `$defs`) are kept as they are.
 */
function withoutHidden(schema: Record<string, unknown>, hidden: ReadonlySet<string>, depth: number): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...schema };
  const { properties, required } = schema;
  if (isPlainObject(properties)) {
    copy.properties = Object.fromEntries(Object.entries(properties).filter(([name]) => !hidden.has(name)));
  }
  if (Array.isArray(required)) {
    const kept = required.filter((name) => !(typeof name === 'string' && hidden.has(name)));
    // An empty `required` is dropped: some clients reject `required: []`.
    if (kept.length > 0) copy.required = kept;
    else delete copy.required;
  }
  if (depth < MAX_BRANCH_DEPTH) {
    for (const keyword of BRANCH_KEYWORDS) {
      const branches = schema[keyword];
      if (!Array.isArray(branches)) continue;
      copy[keyword] = branches.map((branch) => (isPlainObject(branch) ? withoutHidden(branch, hidden, depth + 1) : branch));
    }
  }
  return copy;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The arguments forwarded upstream: the client's, then the parameter overrides, then the hidden
 * parameters (hidden values always win, also over a client that sends a hidden parameter anyway).
 * Injected values are copied so nothing downstream can change the stored policy.
 */
export function prepareArguments(clientArgs: Record<string, unknown> | undefined, policy: ArgumentPolicy): Record<string, unknown> {
  const args: Record<string, unknown> = { ...(clientArgs ?? {}) };
  for (const [name, value] of Object.entries(policy.paramOverrides)) args[name] = structuredClone(value);
  for (const [name, value] of Object.entries(policy.hiddenParams)) args[name] = structuredClone(value);
  return args;
}

/** The hidden parameters a client sent anyway (overwritten by prepareArguments), for the event log. */
export function hiddenParamsSent(clientArgs: Record<string, unknown> | undefined, policy: Pick<EffectiveValues, 'hiddenParams'>): string[] {
  if (!clientArgs) return [];
  return Object.keys(policy.hiddenParams).filter((name) => Object.hasOwn(clientArgs, name));
}
