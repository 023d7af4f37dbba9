import { describe, expect, it } from 'vitest';
import { SettingsSchema } from '../../shared/config.js';
import { defaultGlobalPolicy, GlobalPolicyPatchSchema, validatePolicies } from '../../shared/policy.js';
import { policyDefaults, resolvePolicy } from '../../electron/core/policy/resolve.js';

const known = { servers: { fx: { tools: ['rows'] } } };

describe('the encoding setting (issue 18)', () => {
  it('resolves default ← server ← tool, like the other result fields', () => {
    const defaults = policyDefaults(SettingsSchema.parse({}), defaultGlobalPolicy());
    expect(defaults.encoding).toBe('auto');
    expect(resolvePolicy({ defaults })).toMatchObject({ values: { encoding: 'auto' }, sources: { encoding: 'default' } });
    const global = policyDefaults(SettingsSchema.parse({}), { ...defaultGlobalPolicy(), encoding: 'json' });
    expect(resolvePolicy({ defaults: global }).values.encoding).toBe('json');
    expect(resolvePolicy({ defaults, server: { encoding: 'toon' } })).toMatchObject({
      values: { encoding: 'toon' },
      sources: { encoding: 'server' },
    });
    expect(resolvePolicy({ defaults, server: { encoding: 'toon' }, tool: { encoding: 'json' } })).toMatchObject({
      values: { encoding: 'json' },
      sources: { encoding: 'tool' },
    });
  });

  it('is refused with a message naming the field when invalid', () => {
    expect(validatePolicies({ tools: { fx: { rows: { encoding: 'toon' } } } }, known).ok).toBe(true);
    const bad = validatePolicies({ tools: { fx: { rows: { encoding: 'yaml' } } } }, known);
    expect(bad).toMatchObject({ ok: false, field: 'tools.fx.rows.encoding' });
    expect(!bad.ok && bad.message).toMatch(/^tools\.fx\.rows\.encoding: .*json, toon, auto/);
    expect(validatePolicies({ servers: { fx: { encoding: 1 } } }, known)).toMatchObject({ ok: false, field: 'servers.fx.encoding' });
    expect(GlobalPolicyPatchSchema.safeParse({ encoding: 'toon' }).success).toBe(true);
    expect(GlobalPolicyPatchSchema.safeParse({ encoding: 'csv' }).success).toBe(false);
  });
});
