/**
 * The hub's live policy state (issue 5): effective policies per tool from the config, what each upstream
 * tool becomes in the catalog (direct, dispatch, hidden, withheld), the direct-tool cap, the call cache,
 * usage counts and tool pins. The hub composes it; the config stays the one source of truth.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Config, ServerConfig } from '../../../shared/config.js';
import type { HubEventInput } from '../../../shared/events.js';
import { ownValue } from '../../../shared/records.js';
import type { EffectivePolicy, KnownServers, ResultEncoding, ServerPolicy } from '../../../shared/policy.js';
import type { Catalog, ToolEntry, ToolShape } from '../catalog/catalog.js';
import { addCompressionFields } from '../compress/compression-fields.js';
import { CallCache } from './call-cache.js';
import { selectDirectTools } from './direct-tools.js';
import { MIN_SECRET_CHARS, type SecretText } from '../log/secret-values.js';
import { hiddenSecretTexts } from './hidden-secrets.js';
import { checkCustomPattern } from '../pii/custom-patterns.js';
import { injectedMisfit, type InjectedMisfit } from './injected-fit.js';
import { policyDefaults, resolvePolicy, resolveToolExtras, type CallPolicy } from './resolve.js';
import { exposeTool } from './schema-rewrite.js';
import type { ToolPins } from './tool-pins.js';

/** The fields of a server policy that belong to its ServerConfig (their one source of truth). */
export const SERVER_CONFIG_FIELDS = ['enabled', 'prefix', 'timeoutMs'] as const;

export interface PolicyRuntimeOptions {
  config: () => Config;
  pins: ToolPins;
  emit: (event: HubEventInput) => void;
  /** The cache's clock (ms); tests inject one to expire entries without waiting. */
  now?: () => number;
}

/** A tool's own policy; ids and tool names never reach Object.prototype ("constructor", "toString"). */
function ownToolPolicy(config: Config, serverId: string, toolName: string) {
  const tools = ownValue(config.policies.tools, serverId);
  return tools ? ownValue(tools, toolName) : undefined;
}

/** A server's policy as resolution sees it: exposure and result fields from policies, the rest from its config. */
export function serverLayer(policy: ServerPolicy | undefined, cfg: ServerConfig | undefined): ServerPolicy {
  const { enabled: _e, prefix: _p, timeoutMs: _t, ...rest } = policy ?? {};
  if (!cfg) return rest;
  return {
    ...rest,
    // Only what differs from the default is reported as coming from the server.
    ...(cfg.enabled === false ? { enabled: false } : {}),
    ...(cfg.prefix === false ? { prefix: false } : {}),
    ...(cfg.timeoutMs !== undefined ? { timeoutMs: cfg.timeoutMs } : {}),
  };
}

/**
 * The encoding a tool's results are shown in (issue 18), from the config alone: read_result needs it for
 * results spilled in an earlier run, before the tool is in the catalog or was called.
 */
export function toolEncoding(config: Config, serverId: string, toolName: string): ResultEncoding {
  return resolvePolicy({
    defaults: policyDefaults(config.settings, config.settings.policy),
    server: serverLayer(ownValue(config.policies.servers, serverId), ownValue(config.servers, serverId)),
    tool: ownToolPolicy(config, serverId, toolName),
  }).values.encoding;
}

/**
 * The texts the event log masks as secrets among the hidden parameters of the config's tool policies:
 * every secret a call replaces in what goes back (hiddenSecretTexts, the one notion of a hidden secret),
 * and also any text that looks like a token (the log masks more rather than less). A plain word under a
 * plain name (`units: "metric"`) is left: masking it would blank that word in every log line.
 */
export function hiddenParamTexts(config: Config): SecretText[] {
  const out: SecretText[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === 'string') {
      if (looksLikeToken(value)) out.push(value);
    } else if (Array.isArray(value)) for (const v of value) collect(v);
    else if (typeof value === 'object' && value !== null) for (const v of Object.values(value)) collect(v);
  };
  for (const tools of Object.values(config.policies.tools))
    for (const policy of Object.values(tools)) {
      // A secret too short to mask anywhere (a 4-character PIN) is masked as a whole word, as a result replaces it.
      for (const { text } of hiddenSecretTexts(policy.hiddenParams)) out.push(text.trim().length < MIN_SECRET_CHARS ? { word: text } : text);
      collect(policy.hiddenParams ?? {});
    }
  return out;
}

/**
 * A text that looks like a token or an id-like credential: at least 12 characters, no whitespace, and
 * both letters and digits (`acct-7731-blue`, `ghp_…`, `sk-…`). Plain words and numbers do not.
 */
function looksLikeToken(text: string): boolean {
  return text.length >= 12 && !/\s/.test(text) && /[a-z]/i.test(text) && /\d/.test(text);
}

/** How the log names a tool policy's fields (the rest by their names). */
const FIELD_WORDS: Record<string, string> = {
  hidden: 'hidden',
  hiddenParams: 'hidden parameters',
  paramOverrides: 'parameter overrides',
  pii: 'PII masking',
};

export class PolicyRuntime {
  readonly cache: CallCache;
  readonly pins: ToolPins;
  /** Calls per exposed name since start: the cap keeps the most-used tools direct. */
  readonly usage = new Map<string, number>();
  readonly #config: () => Config;
  /** Effective values per catalog entry, with the config object they were resolved from. */
  readonly #values = new WeakMap<object, { config: Config; values: CallPolicy }>();
  readonly #emit: (event: HubEventInput) => void;
  /** Withheld changes already announced (key → fingerprint), so each change is announced once. */
  readonly #announced = new Map<string, string>();
  /** Per server, the tool policies already said to match none of its tools (#noteUnmatched). */
  readonly #unmatched = new Map<string, Set<string>>();

  constructor(options: PolicyRuntimeOptions) {
    this.#config = options.config;
    this.pins = options.pins;
    this.#emit = options.emit;
    this.cache = new CallCache(options.now ? { now: options.now } : {});
  }

  /** Each field's effective value and source for one tool (the upstream tool, when known, for readOnlyHint). */
  effective(serverId: string, toolName: string | undefined, upstream?: Tool): EffectivePolicy {
    const config = this.#config();
    return resolvePolicy({
      defaults: policyDefaults(config.settings, config.settings.policy),
      server: serverLayer(ownValue(config.policies.servers, serverId), ownValue(config.servers, serverId)),
      ...(toolName !== undefined ? { tool: ownToolPolicy(config, serverId, toolName) } : {}),
      readOnlyHint: upstream?.annotations?.readOnlyHint === true,
    });
  }

  /** The effective values for a catalog entry (per call), with the tool's compression and PII fields. */
  values(entry: Pick<ToolEntry, 'serverId' | 'original' | 'upstream'>): CallPolicy {
    // Asked on every call: kept per entry while the config object stays the same (every change replaces it).
    const config = this.#config();
    const cached = this.#values.get(entry);
    if (cached?.config === config) return cached.values;
    const tool = ownToolPolicy(config, entry.serverId, entry.original);
    const values: CallPolicy = { ...this.effective(entry.serverId, entry.original, entry.upstream).values, ...resolveToolExtras(tool) };
    // Checked once per definition and config: the upstream may have changed the tool since the policy was saved.
    const misfit = injectedMisfit(entry.serverId, entry.upstream, tool);
    if (misfit) values.injectedMisfit = misfit;
    this.#values.set(entry, { config, values });
    return values;
  }

  /**
   * The names of a server's tools withheld by their pins (none when pinning is off). A change seen for
   * the first time is announced with a `tool.withheld` event. A hidden tool is never withheld: it stays
   * hidden, and no one is asked to approve a change of it until it is shown again.
   */
  withheld(serverId: string, tools: Tool[]): Set<string> {
    this.#noteUnmatched(serverId, tools);
    if (!this.#config().settings.policy.pinning) return new Set();
    const { withheld } = this.pins.checkAll(serverId, tools);
    const names = new Set<string>();
    for (const { tool, change } of withheld) {
      if (this.effective(serverId, tool.name, tool).values.hidden) {
        this.pins.setAside(serverId, tool.name);
        continue;
      }
      names.add(tool.name);
      const key = `${serverId}\u0000${tool.name}`;
      const print = JSON.stringify(change);
      if (this.#announced.get(key) === print) continue;
      this.#announced.set(key, print);
      this.#emit({ type: 'tool.withheld', level: 'warn', server: serverId, tool: tool.name, ...change });
    }
    for (const key of [...this.#announced.keys()]) {
      if (key.startsWith(`${serverId}\u0000`) && !names.has(key.slice(serverId.length + 1))) this.#announced.delete(key);
    }
    return names;
  }

  /**
   * The injected value of a tool's policy that the tool's withheld new definition does not take (named in
   * the pending entry and said when the change is approved); undefined when none, or nothing is pending.
   */
  pendingMisfit(serverId: string, toolName: string): InjectedMisfit | undefined {
    const pending = this.pins.pendingTool(serverId, toolName);
    return pending && injectedMisfit(serverId, pending, ownToolPolicy(this.#config(), serverId, toolName));
  }

  /**
   * Says in the log, once for each, the tool policies of a server that match none of the tools it lists
   * (`tools`: its own list, or the one it gave when last ready): the upstream renamed or removed the tool,
   * and the policy silently stopped applying (a hidden parameter of the renamed tool is shown again).
   */
  #noteUnmatched(serverId: string, tools: Tool[]): void {
    const policies = ownValue(this.#config().policies.tools, serverId);
    const announced = this.#unmatched.get(serverId);
    if (!policies && !announced) return;
    const listed = new Set(tools.map((t) => t.name));
    const unmatched = new Set<string>();
    for (const [name, policy] of Object.entries(policies ?? {})) {
      if (listed.has(name)) continue;
      unmatched.add(name);
      if (announced?.has(name)) continue;
      const fields = Object.keys(policy).map((field) => ownValue(FIELD_WORDS, field) ?? field);
      this.#emit({
        type: 'log',
        level: 'warn',
        server: serverId,
        message:
          `Server "${serverId}" lists no tool "${name}" now, so the policy set for it (${fields.join(', ') || 'empty'}) matches no tool ` +
          'and does not apply. If the tool was renamed, set the policy again on its new name in Tools & policies; if it was removed, reset the old policy there.',
      });
    }
    // A tool listed again (or a policy reset) is forgotten: it is said again if it goes missing again.
    if (unmatched.size > 0) this.#unmatched.set(serverId, unmatched);
    else this.#unmatched.delete(serverId);
  }

  /** What one upstream tool becomes in the catalog: its state and the definition clients see. */
  shape(serverId: string, tool: Tool, withheld: boolean): ToolShape {
    const { values, sources } = this.effective(serverId, tool.name, tool);
    const exposed = exposeTool(tool, { description: values.description, hiddenParams: values.hiddenParams });
    if (values.hidden) return { state: 'hidden', reason: 'policy', exposed };
    if (withheld) return { state: 'withheld', reason: 'pin', exposed };
    // A tool whose results are condensed takes the optional _spillway_goal and _spillway_bypass arguments.
    if (values.action === 'compress') exposed.inputSchema = addCompressionFields(exposed.inputSchema);
    if (values.exposure === 'dispatch') return { state: 'dispatch', reason: sources.exposure === 'default' ? 'dispatchOnly' : 'server', exposed };
    return { state: 'direct', exposed };
  }

  /** The names past the cap on directly listed tools (the least used), given how many own tools are listed. */
  overCap(direct: ToolEntry[], ownTools: number): Set<string> {
    const cap = this.#config().settings.policy.maxDirectTools;
    if (cap === null) return new Set();
    const { dispatched } = selectDirectTools(direct, Math.max(0, cap - ownTools), this.usage);
    return new Set(dispatched.map((e) => e.name));
  }

  /** Counts a call for the cap. */
  countUse(exposedName: string): void {
    this.usage.set(exposedName, (this.usage.get(exposedName) ?? 0) + 1);
  }

  /**
   * What validation checks names against: every configured server, with its tools once it is connected,
   * else the tools the catalog kept from its last run (an idle server, started on first use, is checked
   * like a ready one). Without either (never connected, or a kept tool lost a name clash) any tool name is taken.
   */
  known(upstreams: ReadonlyMap<string, { status: string; tools: Tool[] }>, catalog: Pick<Catalog, 'toolEntries' | 'clashes'>): KnownServers {
    const servers: KnownServers['servers'] = {};
    for (const id of Object.keys(this.#config().servers)) {
      const up = upstreams.get(id);
      const tools = up?.status === 'ready' ? up.tools : keptTools(catalog, id);
      servers[id] = tools
        ? { tools: tools.map((t) => t.name), inputSchemas: Object.fromEntries(tools.map((t) => [t.name, t.inputSchema])) }
        : { tools: undefined };
    }
    return {
      servers,
      checkPattern: (p) => checkCustomPattern(p),
    };
  }
}

/** A server's tools as the catalog kept them from its last run; undefined when it has none or lost some to a name clash. */
function keptTools(catalog: Pick<Catalog, 'toolEntries' | 'clashes'>, serverId: string): Tool[] | undefined {
  const kept = catalog.toolEntries().filter((e) => e.serverId === serverId && e.kept);
  if (kept.length === 0 || catalog.clashes.some((c) => c.kind === 'tool' && c.serverId === serverId)) return undefined;
  return kept.map((e) => e.upstream);
}
