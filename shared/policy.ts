/**
 * Per-tool and per-server policies (issue 5): what each tool shows and what its results cost.
 * Keyed by server id and the tool's original (upstream) name; resolved as defaults ← server ← tool.
 * Runtime-neutral: no node:*, no electron, no DOM.
 */
import { z } from 'zod';
import { injectedParamProblem, listSome, type InjectedValueCheck, type KnownInputSchema } from './policy-params.js';
import { plainIssue } from './plain-issues.js';
import { previewWarning } from './spill-advice.js';

export * from './policy-edits.js';

/**
 * What happens to a result over its threshold. 'compress' condenses it with the compression model
 * (settings.compression) and keeps the original in the spill store; without a model it spills.
 */
export const PolicyActionSchema = z.enum(['spill', 'truncate', 'compress', 'pass']);
export type PolicyAction = z.infer<typeof PolicyActionSchema>;

/** 'dispatch' servers are reachable only through `spillway__dispatch`. */
export const ExposureSchema = z.enum(['direct', 'dispatch']);
export type Exposure = z.infer<typeof ExposureSchema>;

/**
 * How JSON results are shown to the model (issue 18): 'toon' renders a uniform array of objects as TOON,
 * 'auto' does so only where that saves at least 15% of the tokens, 'json' never.
 */
export const ResultEncodingSchema = z.enum(['json', 'toon', 'auto']);
export type ResultEncoding = z.infer<typeof ResultEncodingSchema>;

export const PolicySourceSchema = z.enum(['default', 'server', 'tool']);
export type PolicySource = z.infer<typeof PolicySourceSchema>;

const paramName = z.string().min(1, 'a parameter name cannot be empty');

/** True for what survives a JSON round trip unchanged (finite numbers, no functions, no undefined). */
export function isJsonValue(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJsonValue);
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value);
    return (proto === Object.prototype || proto === null) && Object.values(value as object).every(isJsonValue);
  }
  return false;
}

const jsonValue = z.unknown().refine(isJsonValue, 'must be a JSON value (string, number, boolean, null, array or object)');

/**
 * A hidden parameter is removed from what clients see, so Spillway must supply it: null or a missing
 * value is refused (a GUI's empty value field would otherwise silently inject nothing).
 */
const hiddenValue = z
  .unknown()
  // Said after the parameter's name (plain-issues.ts): `The hidden parameter "message" needs a value…`.
  .refine((v) => v !== undefined && v !== null, 'needs a value to inject: clients no longer send it, so Spillway sends this value in its place')
  .refine(isJsonValue, 'must be a JSON value (string, number, boolean, array or object)');

/** Result and cache fields shared by server and tool level (bounds match settings.spill). */
const resultFields = {
  action: PolicyActionSchema.optional(),
  /** Tokens above which the action applies; null turns the check off for this scope. */
  thresholdTokens: z
    .number()
    .int('must be a whole number of tokens')
    .min(1, 'must be at least 1 token (null turns the threshold off)')
    .max(10_000_000)
    .nullable()
    .optional(),
  previewTokens: z.number().int().min(50, 'must be at least 50 tokens').max(100_000).optional(),
  /** Seconds a result is served from the cache; 0 turns caching off. */
  cacheTtlSeconds: z
    .number()
    .int()
    .min(0, 'must not be negative (0 turns the cache off)')
    .max(7 * 24 * 3600)
    .optional(),
  /** Cache isError results too (off: a failed call is always retried). */
  cacheErrors: z.boolean().optional(),
  /** Per-call timeout (ms), reset by progress. */
  timeoutMs: z.number().int().positive('must be more than 0 ms').max(3_600_000).optional(),
  /** JSON or TOON for tabular JSON results (previews, read_result output, pass-through text). */
  encoding: ResultEncodingSchema.optional(),
};

/** Kinds of personal data the masker knows (electron/core/pii PII_TYPES; a test keeps them equal). */
export const PiiTypeSchema = z.enum(['email', 'phone', 'ssn', 'credit_card', 'ipv4', 'ipv6', 'dob']);
export type PiiTypeName = z.infer<typeof PiiTypeSchema>;

/*
 * Each policy object comes in two forms. The strict one is what a request from the window or the control
 * API must fit: a key it does not know (a typo) is refused, naming it. The stored one, read from
 * config.json, leaves such a key out of the config in force instead: it may be a newer Spillway's
 * setting, and refusing it would make the whole file unreadable. config-unknown-keys.ts names it at load
 * and writes it back at each save, also when the window saves that same policy.
 */

const customPiiFields = {
  name: z.string().min(1, 'a pattern needs a name').max(64),
  pattern: z.string().min(1, 'the pattern is empty').max(1000),
  flags: z.string().max(4).optional(),
};
/** A user's own kind of personal data, e.g. `{name: 'employee_id', pattern: 'EMP-\\d{6}'}` → `[EMPLOYEE_ID_1]`. */
export const CustomPiiPatternSchema = z.strictObject(customPiiFields);
export type CustomPiiPatternPolicy = z.infer<typeof CustomPiiPatternSchema>;

const piiFields = <C extends z.ZodType<CustomPiiPatternPolicy>>(custom: C) => ({
  types: z.array(PiiTypeSchema).default([]),
  custom: z.array(custom).max(50).optional(),
  /** Also mask the result before it reaches the spill store or the compression model. */
  maskResults: z.boolean().optional(),
});
/** A kind named twice is refused, naming it (where it is named again): the list then says what it does. */
function refuseRepeatedTypes(pii: { types: readonly string[] }, ctx: z.RefinementCtx): void {
  for (const [i, type] of pii.types.entries()) {
    if (pii.types.indexOf(type) !== i) {
      ctx.addIssue({ code: 'custom', path: ['types', i], message: `list names "${type}" twice: keep one of them` });
      return;
    }
  }
}
/**
 * Per-tool PII masking: arguments masked before they go upstream and restored in the result. A kind named
 * twice is refused here; the stored form (below) takes it, as a config.json an older Spillway wrote may have it.
 */
export const PiiPolicySchema = z.strictObject(piiFields(CustomPiiPatternSchema)).superRefine(refuseRepeatedTypes);
/**
 * A key of a custom pattern that Spillway does not know is named at load and written back while that
 * pattern stays as it was (findUnknownKeys looks into the list, entry by entry).
 */
const StoredPiiPolicySchema = z.object(piiFields(z.object(customPiiFields)));
export type PiiPolicy = z.infer<typeof PiiPolicySchema>;

const toolFields = {
  /** Absent from tools/list and refused if called. */
  hidden: z.boolean().optional(),
  /** Replaces the upstream description in tools/list. */
  description: z.string().max(10_000).optional(),
  /** Removed from the exposed inputSchema and injected with these values before forwarding. */
  hiddenParams: z.record(paramName, hiddenValue).optional(),
  /** Still visible to clients, but these values win over what the client sent. */
  paramOverrides: z.record(paramName, jsonValue).optional(),
  ...resultFields,
  /** Extra instructions for the compression model (action 'compress'). */
  compressInstructions: z.string().max(4000).optional(),
  /** Output budget of a compression (before retry escalation); default settings.compression.defaultMaxOutputTokens. */
  compressMaxTokens: z.number().int().min(16, 'must be at least 16 tokens').max(100_000).optional(),
};

function refuseOverriddenHidden(
  policy: { hiddenParams?: Record<string, unknown>; paramOverrides?: Record<string, unknown> },
  ctx: z.RefinementCtx,
): void {
  for (const name of Object.keys(policy.paramOverrides ?? {})) {
    if (policy.hiddenParams && Object.hasOwn(policy.hiddenParams, name)) {
      ctx.addIssue({
        code: 'custom',
        path: ['paramOverrides', name],
        message: 'is also a hidden parameter; set its value in hiddenParams only',
      });
    }
  }
}

export const ToolPolicySchema = z.strictObject({ ...toolFields, pii: PiiPolicySchema.optional() }).superRefine(refuseOverriddenHidden);
const StoredToolPolicySchema = z.object({ ...toolFields, pii: StoredPiiPolicySchema.optional() }).superRefine(refuseOverriddenHidden);
export type ToolPolicy = z.infer<typeof ToolPolicySchema>;

const serverFields = {
  enabled: z.boolean().optional(),
  /** Prefix tool names with `<server>__`. */
  prefix: z.boolean().optional(),
  exposure: ExposureSchema.optional(),
  ...resultFields,
};
export const ServerPolicySchema = z.strictObject(serverFields);
export type ServerPolicy = z.infer<typeof ServerPolicySchema>;

const policiesFields = <S extends z.ZodType<ServerPolicy>, T extends z.ZodType<ToolPolicy>>(server: S, tool: T) => ({
  servers: z.record(z.string(), server).default({}),
  /** tools[serverId][originalToolName] */
  tools: z.record(z.string(), z.record(z.string(), tool)).default({}),
});
/** The policies as config.json holds them (the stored form). */
export const PoliciesSchema = z.object(policiesFields(z.object(serverFields), StoredToolPolicySchema));
/** The policies a write must fit (the strict form): validatePolicies. */
const PoliciesWriteSchema = z.strictObject(policiesFields(ServerPolicySchema, ToolPolicySchema));
export type Policies = z.infer<typeof PoliciesSchema>;
export type PoliciesInput = z.input<typeof PoliciesSchema>;

export function emptyPolicies(): Policies {
  return { servers: {}, tools: {} };
}

/**
 * App-wide switches that sit above every server (they live next to settings.spill). Stored form: a key it
 * does not know is left out, not refused; a change is made with GlobalPolicyPatchSchema, which refuses it.
 */
export const GlobalPolicyDefaultsSchema = z.object({
  /** Expose only Spillway's own tools; everything else is reached through spillway__dispatch. */
  dispatchOnly: z.boolean().default(false),
  /** Most upstream tools listed directly; past it the least-used go behind dispatch. null = no cap. */
  maxDirectTools: z.number().int().min(0, 'must not be negative (null turns the cap off)').max(10_000).nullable().default(null),
  /** Cache tools annotated readOnlyHint even without a per-tool TTL. */
  cacheReadOnlyTools: z.boolean().default(false),
  /** TTL used for readOnlyHint tools when cacheReadOnlyTools is on (and no TTL is set for them). */
  readOnlyCacheTtlSeconds: z
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 3600)
    .default(300),
  /** Withhold tools whose name, description or schema changed until the user approves. */
  pinning: z.boolean().default(true),
  /** How tabular JSON results are shown when no server or tool sets it. */
  encoding: ResultEncodingSchema.default('auto'),
});
export type GlobalPolicyDefaults = z.infer<typeof GlobalPolicyDefaultsSchema>;

/**
 * A partial update of the global switches. Not `.partial()`: in zod 4 that still fills every default in,
 * and saving that would reset what the user did not touch.
 */
export const GlobalPolicyPatchSchema = z
  .object({
    dispatchOnly: GlobalPolicyDefaultsSchema.shape.dispatchOnly.unwrap().optional(),
    maxDirectTools: GlobalPolicyDefaultsSchema.shape.maxDirectTools.unwrap().optional(),
    cacheReadOnlyTools: GlobalPolicyDefaultsSchema.shape.cacheReadOnlyTools.unwrap().optional(),
    readOnlyCacheTtlSeconds: GlobalPolicyDefaultsSchema.shape.readOnlyCacheTtlSeconds.unwrap().optional(),
    pinning: GlobalPolicyDefaultsSchema.shape.pinning.unwrap().optional(),
    encoding: ResultEncodingSchema.optional(),
  })
  .strict();
export type GlobalPolicyPatch = z.infer<typeof GlobalPolicyPatchSchema>;

export function defaultGlobalPolicy(): GlobalPolicyDefaults {
  return GlobalPolicyDefaultsSchema.parse({});
}

// ── effective policy ───────────────────────────────────────────────────────────────────────────

/** Every field after defaults ← server ← tool. */
export const EffectiveValuesSchema = z.object({
  enabled: z.boolean(),
  prefix: z.boolean(),
  exposure: ExposureSchema,
  hidden: z.boolean(),
  /** null: the upstream's own description. */
  description: z.string().nullable(),
  hiddenParams: z.record(z.string(), z.unknown()),
  paramOverrides: z.record(z.string(), z.unknown()),
  action: PolicyActionSchema,
  thresholdTokens: z.number().int().nullable(),
  previewTokens: z.number().int(),
  cacheTtlSeconds: z.number().int(),
  cacheErrors: z.boolean(),
  timeoutMs: z.number().int(),
  encoding: ResultEncodingSchema,
});
export type EffectiveValues = z.infer<typeof EffectiveValuesSchema>;

export const PolicyFieldSchema = EffectiveValuesSchema.keyof();
export type PolicyField = z.infer<typeof PolicyFieldSchema>;

/** The effective value of each field and where it came from. */
export const EffectivePolicySchema = z.object({
  values: EffectiveValuesSchema,
  sources: z.record(PolicyFieldSchema, PolicySourceSchema),
  /** Values in force that work against themselves (a preview not below the threshold), in plain words. */
  warnings: z.array(z.string()).optional(),
});
export type EffectivePolicy = z.infer<typeof EffectivePolicySchema>;

// ── tool pinning ───────────────────────────────────────────────────────────────────────────────

/** A tool withheld because its definition changed since it was pinned. */
export const PendingPinSchema = z.object({
  server: z.string(),
  /** The upstream's own name. */
  tool: z.string(),
  oldDescription: z.string().nullable(),
  newDescription: z.string().nullable(),
  /** `+ path` added, `- path` removed, `~ path` changed (paths into inputSchema; `name` when it changed). */
  schemaDiff: z.array(z.string()),
  detectedAt: z.string(),
  /**
   * A value the tool's policy injects (hidden parameter, override) that the new definition does not take,
   * by field (`tools.mail.send.hiddenParams.apiKey`), never with the value: once approved, calls are refused
   * until the value is changed.
   */
  policyProblem: z.object({ field: z.string(), message: z.string() }).optional(),
});
export type PendingPin = z.infer<typeof PendingPinSchema>;

// ── validation against what is connected ───────────────────────────────────────────────────────

export type { InjectedValueCheck, KnownInputSchema };

export interface KnownServer {
  /**
   * The tools the server lists now; undefined while it has not connected (then any tool name is accepted:
   * a policy written while a server is down or still starting must not be lost).
   */
  tools: string[] | undefined;
  /** Input schemas by original tool name, to refuse parameters the tool does not have. */
  inputSchemas?: Record<string, KnownInputSchema | undefined>;
}

export interface KnownServers {
  servers: Record<string, KnownServer>;
  /**
   * Checks a custom PII pattern (the masker's own check: compiles, cannot match "", no catastrophic
   * nesting); `label` is its placeholder name (`emp-id` → EMP_ID), which two patterns of a tool may not share.
   */
  checkPattern?: (pattern: CustomPiiPatternPolicy) => { ok: true; label?: string } | { ok: false; message: string };
  /**
   * Checks an injected value (hidden parameter, override) against the tool's input schema: the hub's
   * full JSON Schema check. Without it only the parameter's `type` and `enum` are read (policy-params.ts).
   */
  checkValue?: InjectedValueCheck;
}

/** Valid policies may still carry warnings: settings that work against themselves, by field (issue 14, item 5). */
export type PolicyValidation =
  { ok: true; value: Policies; warnings?: { field: string; message: string }[] } | { ok: false; field: string; message: string };

function fail(field: string, message: string): PolicyValidation {
  return { ok: false, field, message: `${field}: ${message}` };
}

/**
 * Checks policies against their schema and against the servers and tools Spillway knows. Refuses an
 * unknown server or tool, a hidden parameter without a value, a parameter the tool does not have, an
 * injected value of a type the tool does not take, a negative threshold — naming the field (e.g.
 * `tools.fs.read_fil`). Meant for writes: policies already stored for a tool that has since gone away
 * are kept and simply match nothing.
 */
export function validatePolicies(policies: unknown, known: KnownServers): PolicyValidation {
  const parsed = PoliciesWriteSchema.safeParse(policies);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.map(String).join('.') || '(root)';
    return fail(field, plainIssue(issue));
  }
  const value = parsed.data;
  const knownIds = Object.keys(known.servers);
  for (const serverId of Object.keys(value.servers)) {
    if (!Object.hasOwn(known.servers, serverId)) {
      return fail(`servers.${serverId}`, `no server "${serverId}" is configured (configured: ${listSome(knownIds)})`);
    }
  }
  for (const [serverId, tools] of Object.entries(value.tools)) {
    const server = Object.hasOwn(known.servers, serverId) ? known.servers[serverId] : undefined;
    if (!server) return fail(`tools.${serverId}`, `no server "${serverId}" is configured (configured: ${listSome(knownIds)})`);
    for (const [toolName, policy] of Object.entries(tools)) {
      const field = `tools.${serverId}.${toolName}`;
      if (server.tools && !server.tools.includes(toolName)) {
        return fail(field, `server "${serverId}" has no tool "${toolName}" (it has: ${listSome(server.tools)})`);
      }
      const bad = injectedParamProblem(field, policy, server.inputSchemas?.[toolName], known.checkValue);
      if (bad) return fail(bad.field, bad.message);
      const custom = policy.pii?.custom ?? [];
      // The masker refuses two patterns with one placeholder name at call time: refused here instead.
      const labels = new Map<string, string>();
      for (const [i, pattern] of custom.entries()) {
        const checked = known.checkPattern?.(pattern);
        if (checked && !checked.ok) return fail(`${field}.pii.custom.${i}`, `"${pattern.name}": ${checked.message}`);
        const label = checked?.label;
        if (label === undefined) continue;
        const first = labels.get(label);
        if (first !== undefined) {
          return fail(
            `${field}.pii.custom.${i}`,
            `"${pattern.name}" gives the same placeholder name (${label}) as "${first}": rename one of them or remove one`,
          );
        }
        labels.set(label, pattern.name);
      }
    }
  }
  const warnings = previewWarnings(value);
  return warnings.length > 0 ? { ok: true, value, warnings } : { ok: true, value };
}

/** A warning for each server or tool policy whose own preview is not below its own threshold. */
function previewWarnings(policies: Policies): { field: string; message: string }[] {
  const out: { field: string; message: string }[] = [];
  const check = (field: string, policy: { thresholdTokens?: number | null; previewTokens?: number }) => {
    const message = previewWarning(policy.thresholdTokens, policy.previewTokens);
    if (message) out.push({ field: `${field}.previewTokens`, message });
  };
  for (const [serverId, policy] of Object.entries(policies.servers)) check(`servers.${serverId}`, policy);
  for (const [serverId, tools] of Object.entries(policies.tools)) {
    for (const [toolName, policy] of Object.entries(tools)) check(`tools.${serverId}.${toolName}`, policy);
  }
  return out;
}
