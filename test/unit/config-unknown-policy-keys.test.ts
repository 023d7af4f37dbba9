/**
 * Keys under settings.policy and policies that Spillway does not know (a newer Spillway's setting, as
 * settings.policy.encoding was for builds before it): the config stays readable, each key is named at
 * load, kept out of the config in force and written back at each save. A request from the window or the
 * control API with such a key (a typo) is still refused, naming it. Audit s16 (upgrade/downgrade).
 */
import { describe, expect, it } from 'vitest';
import { defaultConfig, parseConfig, type Config } from '../../shared/config.js';
import { withUnknownKeys } from '../../shared/config-unknown-keys.js';
import { GlobalPolicyPatchSchema, validatePolicies, withServerPolicy, withToolPolicy } from '../../shared/policy.js';
import { policyApi } from '../../shared/api-policy.js';

type Json = Record<string, unknown>;
const tool = (policy: Json): Json => ({ tools: { s: { t: policy } } });

/** Where the key goes, and the part of `policies` or `settings.policy` that holds it. */
const cases: Record<string, (c: { settings: Json & { spill: Json; policy: Json }; policies: Json }) => void> = {
  'settings.spill (control: accepted before the fix too)': (c) => (c.settings.spill.futureSpill = 1),
  'settings.policy': (c) => (c.settings.policy.futurePolicy = 1),
  'policies (top)': (c) => (c.policies.futurePol = 1),
  'policies.servers.<id>': (c) => (c.policies.servers = { s: { exposure: 'direct', futureSrv: 1 } }),
  'policies.tools.<id>.<tool>': (c) => Object.assign(c.policies, tool({ description: 'x', futureTool: 1 })),
  'policies.tools.<id>.<tool>.pii': (c) => Object.assign(c.policies, tool({ pii: { types: [], futurePii: 1 } })),
};

describe('a config.json key under settings.policy or policies that Spillway does not know', () => {
  for (const [where, add] of Object.entries(cases)) {
    it(`under ${where} is kept with a warning, not a refused config`, () => {
      const config = JSON.parse(JSON.stringify(defaultConfig()));
      add(config);
      const parsed = parseConfig(JSON.stringify(config), 'config.json');
      expect(parsed.unknown).toHaveLength(1);
      expect(parsed.warnings[0]).toMatch(/does not know the setting .*future\w+ in config\.json, so it has no effect; it stays in the file/);
    });
  }

  const file = {
    version: 1,
    settings: { policy: { pinning: false, futurePolicy: 'a' } },
    policies: {
      futurePol: 'b',
      servers: { s: { exposure: 'dispatch', futureSrv: 'c' } },
      tools: { s: { t: { description: 'x', futureTool: 'd', pii: { types: ['email'], futurePii: 'e' } } } },
    },
  };

  it('is left out of the config in force, so nothing applies it', () => {
    const { config } = parseConfig(JSON.stringify(file));
    expect(config.settings.policy).toEqual({ ...defaultConfig().settings.policy, pinning: false });
    expect(config.policies).toEqual({
      servers: { s: { exposure: 'dispatch' } },
      tools: { s: { t: { description: 'x', pii: { types: ['email'] } } } },
    });
  });

  it('is written back when that same tool, server or the global switches are saved from the window', () => {
    const { config, unknown } = parseConfig(JSON.stringify(file));
    // What the window sends: the policy as policies.get showed it (without the unknown keys), edited.
    let policies = withToolPolicy(config.policies, 's', 't', { description: 'y', pii: { types: ['email', 'phone'] } });
    policies = withServerPolicy(policies, 's', { exposure: 'direct' });
    const saved: Config = { ...config, policies, settings: { ...config.settings, policy: { ...config.settings.policy, pinning: true } } };
    const { value, placed } = withUnknownKeys(saved, unknown);
    expect(placed).toHaveLength(5);
    expect(value.settings.policy).toMatchObject({ pinning: true, futurePolicy: 'a' });
    expect(value.policies).toEqual({
      futurePol: 'b',
      servers: { s: { exposure: 'direct', futureSrv: 'c' } },
      tools: { s: { t: { description: 'y', futureTool: 'd', pii: { types: ['email', 'phone'], futurePii: 'e' } } } },
    });
    // Read again (an older Spillway after a newer one, or the same one restarted): still readable, still kept.
    expect(parseConfig(JSON.stringify(value)).unknown).toHaveLength(5);
  });

  it('is dropped with the tool policy it was in when that policy is reset', () => {
    const { config, unknown } = parseConfig(JSON.stringify(file));
    const { value } = withUnknownKeys({ ...config, policies: withToolPolicy(config.policies, 's', 't', undefined) }, unknown);
    expect(value.policies.tools).toEqual({});
  });
});

describe('a policy sent by the window or the control API', () => {
  it.each([
    ['a tool policy', policyApi['policies.setTool'].req, { server: 's', tool: 't', policy: { descripton: 'x' } }, 'policy.descripton'],
    [
      'a tool policy (pii)',
      policyApi['policies.setTool'].req,
      { server: 's', tool: 't', policy: { pii: { types: [], maskResult: true } } },
      'policy.pii.maskResult',
    ],
    [
      'a tool policy (custom pattern)',
      policyApi['policies.setTool'].req,
      { server: 's', tool: 't', policy: { pii: { custom: [{ name: 'n', pattern: 'p', flag: 'i' }] } } },
      'policy.pii.custom.0.flag',
    ],
    ['a server policy', policyApi['policies.setServer'].req, { server: 's', policy: { exposur: 'direct' } }, 'policy.exposur'],
    ['the global switches', GlobalPolicyPatchSchema, { pinnig: false }, 'pinnig'],
  ])('is still refused with a key it does not know in %s, naming it', (_what, schema, request, field) => {
    const parsed = schema.safeParse(request);
    expect(parsed.success).toBe(false);
    const issue = parsed.error!.issues[0]!;
    expect([...issue.path, ...(issue.code === 'unrecognized_keys' ? issue.keys : [])].join('.')).toBe(field);
  });

  it('is refused by validatePolicies with a key it does not know, naming the field', () => {
    const known = { servers: { s: { tools: ['t'] } } };
    expect(validatePolicies(tool({ hiden: true }), known)).toMatchObject({ ok: false, field: 'tools.s.t' });
    expect(validatePolicies({ servers: { s: { futureSrv: 1 } }, tools: {} }, known)).toMatchObject({ ok: false, field: 'servers.s' });
    expect(validatePolicies({ servers: {}, tools: {}, futurePol: 1 }, known)).toMatchObject({ ok: false, field: '(root)' });
  });
});
