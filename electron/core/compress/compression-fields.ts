/** Optional argument the calling model may fill with what it needs from the result. */
export const GOAL_FIELD = '_spillway_goal';
/** Optional argument that asks for the result without LLM compression. */
export const BYPASS_FIELD = '_spillway_bypass';

const MAX_GOAL_CHARS = 500;

/** The JSON Schema of a tool's input, as tools/list carries it. */
export interface ToolInputSchema {
  type: 'object';
  properties?: Record<string, object>;
  required?: string[];
  [key: string]: unknown;
}

export interface CompressionFieldOptions {
  goal?: boolean;
  bypass?: boolean;
}

/**
 * A copy of a tool's input schema with the optional `_spillway_goal` and `_spillway_bypass` properties
 * added (never required). Properties a tool already defines under those names are left alone.
 */
export function addCompressionFields<S extends ToolInputSchema>(
  schema: S,
  options: CompressionFieldOptions = {},
): S & { properties: Record<string, object> } {
  const properties: Record<string, object> = { ...(schema.properties ?? {}) };
  if ((options.goal ?? true) && !(GOAL_FIELD in properties)) {
    properties[GOAL_FIELD] = {
      type: 'string',
      description: 'Optional: what you need from the result (e.g. "failing test names"). A large result is condensed with this in mind.',
    };
  }
  if ((options.bypass ?? true) && !(BYPASS_FIELD in properties)) {
    properties[BYPASS_FIELD] = {
      type: 'boolean',
      description: 'Optional: true to skip condensing; a large result then comes back as a preview with a handle to read the rest.',
    };
  }
  return { ...schema, properties };
}

export interface TakenCompressionFields<A> {
  /** The arguments to forward upstream, without Spillway's fields. */
  args: A;
  goal?: string;
  bypass?: boolean;
}

/**
 * Splits Spillway's own fields off a call's arguments before they go upstream. The goal is trimmed to
 * one line of at most 500 characters; bypass accepts true or "true". Arguments without the fields are
 * returned as the same object.
 */
export function takeCompressionFields<A>(args: A): TakenCompressionFields<A> {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return { args };
  const record = args as Record<string, unknown>;
  if (!(GOAL_FIELD in record) && !(BYPASS_FIELD in record)) return { args };
  const { [GOAL_FIELD]: goalValue, [BYPASS_FIELD]: bypassValue, ...rest } = record;
  const taken: TakenCompressionFields<A> = { args: rest as A };
  if (typeof goalValue === 'string') {
    const goal = goalValue.replace(/\s+/g, ' ').trim().slice(0, MAX_GOAL_CHARS);
    if (goal) taken.goal = goal;
  }
  if (bypassValue === true || bypassValue === 'true') taken.bypass = true;
  return taken;
}
