/** Policies and tool pinning of the fake backend, resolved defaults ← server ← tool as the hub does. */
import {
  defaultGlobalPolicy,
  type EffectivePolicy,
  type GlobalPolicyDefaults,
  type PendingPin,
  type Policies,
  type PolicySource,
} from '../../shared/policy.js';
import type { ApiResult } from '../../shared/api.js';
import type { FakeBackend, Handlers } from './fake-backend.js';

/** Parameters every fake tool takes (policies naming others are refused). */
const FAKE_PARAMS = ['path', 'encoding', 'limit'];

export class FakePolicies {
  policies: Policies = { servers: {}, tools: {} };
  defaults: GlobalPolicyDefaults = defaultGlobalPolicy();
  pending: PendingPin[] = [];

  constructor(private readonly hub: FakeBackend) {}

  /** Withholds a tool as if its definition had changed. */
  withhold(pin: Omit<PendingPin, 'detectedAt'>): void {
    this.pending.push({ ...pin, detectedAt: new Date().toISOString() });
  }

  effective(server: string, tool: string): EffectivePolicy {
    const spill = this.hub.settings.spill;
    const base = {
      enabled: true,
      prefix: true,
      exposure: 'direct' as const,
      hidden: false,
      description: null,
      hiddenParams: {},
      paramOverrides: {},
      action: spill.action === 'pass' ? ('pass' as const) : spill.action,
      thresholdTokens: spill.thresholdTokens,
      previewTokens: spill.previewTokens,
      cacheTtlSeconds: 0,
      cacheErrors: false,
      timeoutMs: 60_000,
      encoding: this.defaults.encoding,
    };
    const values: Record<string, unknown> = { ...base };
    const sources: Record<string, PolicySource> = Object.fromEntries(Object.keys(base).map((k) => [k, 'default']));
    for (const [source, layer] of [
      ['server', this.policies.servers[server] ?? {}],
      ['tool', this.policies.tools[server]?.[tool] ?? {}],
    ] as const) {
      for (const [k, v] of Object.entries(layer)) {
        if (v === undefined || !(k in base)) continue;
        values[k] = v;
        sources[k] = source;
      }
    }
    return { values, sources } as EffectivePolicy;
  }

  #check(server: string, tool: string): ApiResult<never> | undefined {
    const tools = this.hub.toolsOf(server);
    if (!tools) return { ok: false, code: 'invalid', field: `tools.${server}`, message: `tools.${server}: no server "${server}" is configured` };
    if (!tools.some((t) => t.original === tool)) {
      return {
        ok: false,
        code: 'invalid',
        field: `tools.${server}.${tool}`,
        message: `tools.${server}.${tool}: server "${server}" has no tool "${tool}"`,
      };
    }
    return undefined;
  }

  readonly handlers: Handlers = {
    'policies.get': () => ({ ok: true, value: { policies: this.policies, defaults: this.defaults } }),
    'policies.setTool': (req) => {
      const refused = this.#check(req.server, req.tool);
      if (refused) return refused;
      for (const name of Object.keys(req.policy.hiddenParams ?? {})) {
        if (!FAKE_PARAMS.includes(name)) {
          const field = `tools.${req.server}.${req.tool}.hiddenParams.${name}`;
          return { ok: false, code: 'invalid', field, message: `${field}: the tool has no parameter "${name}" (it has: ${FAKE_PARAMS.join(', ')})` };
        }
      }
      const tools = { ...(this.policies.tools[req.server] ?? {}) };
      if (Object.keys(req.policy).length === 0) delete tools[req.tool];
      else tools[req.tool] = req.policy;
      this.policies = { ...this.policies, tools: { ...this.policies.tools, [req.server]: tools } };
      return { ok: true, value: this.effective(req.server, req.tool) };
    },
    'policies.setServer': (req) => {
      this.policies = { ...this.policies, servers: { ...this.policies.servers, [req.server]: req.policy } };
      return { ok: true, value: this.effective(req.server, '') };
    },
    'policies.resetTool': (req) => {
      const tools = { ...(this.policies.tools[req.server] ?? {}) };
      delete tools[req.tool];
      this.policies = { ...this.policies, tools: { ...this.policies.tools, [req.server]: tools } };
      return { ok: true, value: this.effective(req.server, req.tool) };
    },
    'policies.setDefaults': (req) => {
      const patch = Object.fromEntries(Object.entries(req).filter(([, v]) => v !== undefined));
      this.defaults = { ...this.defaults, ...patch };
      return { ok: true, value: this.defaults };
    },
    'policies.effective': (req) => this.#check(req.server, req.tool) ?? { ok: true, value: this.effective(req.server, req.tool) },
    'policies.exposure': () => ({ ok: true, value: [] }),
    'pins.pending': () => ({ ok: true, value: this.pending }),
    'pins.approve': (req) => {
      const before = this.pending.length;
      this.pending = this.pending.filter((p) => !(p.server === req.server && p.tool === req.tool));
      return { ok: true, value: { approved: this.pending.length < before } };
    },
  };
}
