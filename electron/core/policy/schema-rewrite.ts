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
 * of `inputSchema.properties` and `required`. Hidden parameters are top-level argument names; a nested
 * property that happens to share a name is left alone. `outputSchema` is not touched here.
 */
export function exposeTool(upstream: Tool, policy: ExposurePolicy): Tool {
  const exposed: Tool = { ...upstream };
  if (policy.description !== null) exposed.description = policy.description;
  const hidden = Object.keys(policy.hiddenParams);
  if (hidden.length === 0) return exposed;

  const schema = upstream.inputSchema;
  const inputSchema: Tool['inputSchema'] = { ...schema };
  if (schema.properties && typeof schema.properties === 'object') {
    const properties: Record<string, object> = {};
    for (const [name, prop] of Object.entries(schema.properties)) {
      if (!hidden.includes(name)) properties[name] = prop;
    }
    inputSchema.properties = properties;
  }
  if (Array.isArray(schema.required)) {
    const required = schema.required.filter((name) => !hidden.includes(name));
    // An empty `required` is dropped: some clients reject `required: []`.
    if (required.length > 0) inputSchema.required = required;
    else delete inputSchema.required;
  }
  exposed.inputSchema = inputSchema;
  return exposed;
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
