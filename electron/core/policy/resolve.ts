/**
 * Policy resolution: defaults ← server ← tool, with where each value came from (issue 5). Pure.
 */
import type { Settings } from '../../../shared/config.js';
import type {
  EffectivePolicy,
  EffectiveValues,
  GlobalPolicyDefaults,
  PolicyAction,
  PolicyField,
  PiiPolicy,
  PolicySource,
  ResultEncoding,
  ServerPolicy,
  ToolPolicy,
} from '../../../shared/policy.js';
import type { InjectedMisfit } from './injected-fit.js';

/** The app-wide values a policy falls back to: settings.spill, the request timeout and the global switches. */
export interface PolicyDefaults {
  action: PolicyAction;
  thresholdTokens: number | null;
  previewTokens: number;
  timeoutMs: number;
  /** The TTL when nothing else sets one: 0 (the cache is off by default). */
  cacheTtlSeconds: number;
  cacheErrors: boolean;
  dispatchOnly: boolean;
  cacheReadOnlyTools: boolean;
  readOnlyCacheTtlSeconds: number;
  /** JSON or TOON for tabular results when no server or tool sets it (issue 18). */
  encoding: ResultEncoding;
}

/** Builds the defaults from the settings and the global policy switches. */
export function policyDefaults(
  settings: Pick<Settings, 'spill' | 'requestTimeoutMs'>,
  global: Pick<GlobalPolicyDefaults, 'dispatchOnly' | 'cacheReadOnlyTools' | 'readOnlyCacheTtlSeconds'> &
    Partial<Pick<GlobalPolicyDefaults, 'encoding'>>,
): PolicyDefaults {
  return {
    action: settings.spill.action,
    thresholdTokens: settings.spill.thresholdTokens,
    previewTokens: settings.spill.previewTokens,
    timeoutMs: settings.requestTimeoutMs,
    cacheTtlSeconds: 0,
    cacheErrors: false,
    dispatchOnly: global.dispatchOnly,
    cacheReadOnlyTools: global.cacheReadOnlyTools,
    readOnlyCacheTtlSeconds: global.readOnlyCacheTtlSeconds,
    encoding: global.encoding ?? 'auto',
  };
}

export interface ResolveInput {
  defaults: PolicyDefaults;
  server?: ServerPolicy;
  tool?: ToolPolicy;
  /** The upstream tool's `annotations.readOnlyHint` (for the "cache read-only tools" setting). */
  readOnlyHint?: boolean;
}

type Layered = 'action' | 'thresholdTokens' | 'previewTokens' | 'cacheTtlSeconds' | 'cacheErrors' | 'timeoutMs' | 'encoding';

/**
 * The effective value of every field and its source. A field set at tool level wins over the server's,
 * which wins over the default; `undefined` means "not set here" (null is a value: threshold off).
 * With `dispatchOnly`, exposure is 'dispatch' whatever the server says (source 'default').
 */
export function resolvePolicy({ defaults, server = {}, tool = {}, readOnlyHint = false }: ResolveInput): EffectivePolicy {
  const sources = {} as Record<PolicyField, PolicySource>;
  const values = {} as EffectiveValues;

  const pick = <K extends Layered>(field: K, fallback: EffectiveValues[K]) => {
    const fromTool = tool[field];
    const fromServer = server[field];
    if (fromTool !== undefined) {
      values[field] = fromTool as EffectiveValues[K];
      sources[field] = 'tool';
    } else if (fromServer !== undefined) {
      values[field] = fromServer as EffectiveValues[K];
      sources[field] = 'server';
    } else {
      values[field] = fallback;
      sources[field] = 'default';
    }
  };
  const set = <K extends PolicyField>(field: K, value: EffectiveValues[K], source: PolicySource) => {
    values[field] = value;
    sources[field] = source;
  };

  set('enabled', server.enabled ?? true, server.enabled === undefined ? 'default' : 'server');
  set('prefix', server.prefix ?? true, server.prefix === undefined ? 'default' : 'server');
  if (defaults.dispatchOnly) set('exposure', 'dispatch', 'default');
  else set('exposure', server.exposure ?? 'direct', server.exposure === undefined ? 'default' : 'server');

  set('hidden', tool.hidden ?? false, tool.hidden === undefined ? 'default' : 'tool');
  set('description', tool.description ?? null, tool.description === undefined ? 'default' : 'tool');
  set('hiddenParams', { ...(tool.hiddenParams ?? {}) }, tool.hiddenParams === undefined ? 'default' : 'tool');
  set('paramOverrides', { ...(tool.paramOverrides ?? {}) }, tool.paramOverrides === undefined ? 'default' : 'tool');

  pick('action', defaults.action);
  pick('thresholdTokens', defaults.thresholdTokens);
  pick('previewTokens', defaults.previewTokens);
  pick('cacheTtlSeconds', defaults.cacheReadOnlyTools && readOnlyHint ? defaults.readOnlyCacheTtlSeconds : defaults.cacheTtlSeconds);
  pick('cacheErrors', defaults.cacheErrors);
  pick('timeoutMs', defaults.timeoutMs);
  pick('encoding', defaults.encoding ?? 'auto');

  return { values, sources };
}

/** Tool-level fields of the compression and PII steps (issue 8); set on a tool only, never inherited. */
export interface ToolResultExtras {
  compressInstructions: string | null;
  compressMaxTokens: number | null;
  /** null: no masking (also when the policy names no type and no custom pattern). */
  pii: PiiPolicy | null;
}

/**
 * What one call runs with: the effective values plus the tool's compression and PII fields, and an
 * injected value the tool's definition no longer takes (the call is refused: injected-fit.ts).
 */
export type CallPolicy = EffectiveValues & ToolResultExtras & { injectedMisfit?: InjectedMisfit };

/** The compression and PII fields of a tool's policy. Pure. */
export function resolveToolExtras(tool: ToolPolicy = {}): ToolResultExtras {
  const pii = tool.pii && (tool.pii.types.length > 0 || (tool.pii.custom?.length ?? 0) > 0) ? structuredClone(tool.pii) : null;
  return {
    compressInstructions: tool.compressInstructions?.trim() || null,
    compressMaxTokens: tool.compressMaxTokens ?? null,
    pii,
  };
}

/**
 * Fields of a tool's policy that do nothing as they are set, each said in a sentence that starts with the
 * field (as the preview warning, they are valid and kept): PII masking that names no type and no pattern,
 * compression fields on a tool whose results are not compressed (`action`: its effective action).
 */
export function idleFieldWarnings(tool: ToolPolicy | undefined, action: PolicyAction): string[] {
  const out: string[] = [];
  if (tool?.pii && resolveToolExtras(tool).pii === null) {
    const results = tool.pii.maskResults ? ' (maskResults too)' : '';
    out.push(
      `pii: no type of personal data and no custom pattern is chosen, so nothing is masked${results}: ` +
        'choose the types to mask (email, phone, …) or remove PII masking.',
    );
  }
  const compressFields = (['compressInstructions', 'compressMaxTokens'] as const).filter((field) => tool?.[field] !== undefined);
  if (action !== 'compress' && compressFields.length > 0) {
    out.push(
      `${compressFields.join(' and ')}: used only when the tool's results are compressed, and its action is ${action}: ` +
        `set the action to compress, or remove ${compressFields.length > 1 ? 'them' : 'it'}.`,
    );
  }
  return out;
}
