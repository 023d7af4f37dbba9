import { describe, expect, it } from 'vitest';
import { SettingsSchema } from '../../shared/config.js';
import { defaultGlobalPolicy, EffectivePolicySchema, type ServerPolicy, type ToolPolicy } from '../../shared/policy.js';
import { policyDefaults, resolvePolicy, type PolicyDefaults } from '../../electron/core/policy/resolve.js';

const defaults: PolicyDefaults = policyDefaults(SettingsSchema.parse({}), defaultGlobalPolicy());

describe('policyDefaults', () => {
  it('takes the result defaults from settings.spill and the timeout from the settings', () => {
    const settings = SettingsSchema.parse({ requestTimeoutMs: 5_000, spill: { action: 'truncate', thresholdTokens: 2_000, previewTokens: 300 } });
    expect(policyDefaults(settings, defaultGlobalPolicy())).toEqual({
      action: 'truncate',
      thresholdTokens: 2_000,
      previewTokens: 300,
      timeoutMs: 5_000,
      cacheTtlSeconds: 0,
      cacheErrors: false,
      dispatchOnly: false,
      cacheReadOnlyTools: false,
      readOnlyCacheTtlSeconds: 300,
      encoding: 'auto',
    });
  });
});

type Row = [
  label: string,
  input: { server?: ServerPolicy; tool?: ToolPolicy; readOnlyHint?: boolean; defaults?: Partial<PolicyDefaults> },
  expected: Record<string, [unknown, 'default' | 'server' | 'tool']>,
];

const table: Row[] = [
  [
    'nothing set: every field from the defaults',
    {},
    {
      enabled: [true, 'default'],
      prefix: [true, 'default'],
      exposure: ['direct', 'default'],
      hidden: [false, 'default'],
      description: [null, 'default'],
      hiddenParams: [{}, 'default'],
      paramOverrides: [{}, 'default'],
      action: ['spill', 'default'],
      thresholdTokens: [10_000, 'default'],
      previewTokens: [1_000, 'default'],
      cacheTtlSeconds: [0, 'default'],
      cacheErrors: [false, 'default'],
      timeoutMs: [60_000, 'default'],
    },
  ],
  [
    'server overrides the defaults',
    { server: { action: 'truncate', thresholdTokens: 500, exposure: 'dispatch', prefix: false, enabled: false, timeoutMs: 1_000 } },
    {
      action: ['truncate', 'server'],
      thresholdTokens: [500, 'server'],
      exposure: ['dispatch', 'server'],
      prefix: [false, 'server'],
      enabled: [false, 'server'],
      timeoutMs: [1_000, 'server'],
      previewTokens: [1_000, 'default'],
    },
  ],
  [
    'tool overrides the server',
    { server: { action: 'truncate', thresholdTokens: 500, cacheTtlSeconds: 60 }, tool: { action: 'pass', cacheTtlSeconds: 0 } },
    {
      action: ['pass', 'tool'],
      thresholdTokens: [500, 'server'],
      cacheTtlSeconds: [0, 'tool'],
    },
  ],
  [
    'null threshold at tool level turns the threshold off (null is a value, not "unset")',
    { server: { thresholdTokens: 500 }, tool: { thresholdTokens: null } },
    { thresholdTokens: [null, 'tool'] },
  ],
  ['null threshold at server level, tool unset', { server: { thresholdTokens: null } }, { thresholdTokens: [null, 'server'] }],
  [
    'tool-only fields',
    { tool: { hidden: true, description: 'Say it back', hiddenParams: { root: '/data' }, paramOverrides: { limit: 5 } } },
    {
      hidden: [true, 'tool'],
      description: ['Say it back', 'tool'],
      hiddenParams: [{ root: '/data' }, 'tool'],
      paramOverrides: [{ limit: 5 }, 'tool'],
    },
  ],
  [
    'dispatchOnly wins over a server that asks for direct',
    { server: { exposure: 'direct' }, defaults: { dispatchOnly: true } },
    { exposure: ['dispatch', 'default'] },
  ],
  [
    'cacheReadOnlyTools gives read-only tools the read-only TTL',
    { readOnlyHint: true, defaults: { cacheReadOnlyTools: true } },
    { cacheTtlSeconds: [300, 'default'] },
  ],
  [
    'cacheReadOnlyTools leaves other tools uncached',
    { readOnlyHint: false, defaults: { cacheReadOnlyTools: true } },
    { cacheTtlSeconds: [0, 'default'] },
  ],
  ['readOnlyHint alone does not turn the cache on', { readOnlyHint: true }, { cacheTtlSeconds: [0, 'default'] }],
  [
    'a tool TTL of 0 turns the read-only cache off for that tool',
    { readOnlyHint: true, tool: { cacheTtlSeconds: 0 }, defaults: { cacheReadOnlyTools: true } },
    { cacheTtlSeconds: [0, 'tool'] },
  ],
  ['cacheErrors from the server', { server: { cacheErrors: true } }, { cacheErrors: [true, 'server'] }],
];

describe('resolvePolicy', () => {
  it.each(table)('%s', (_label, input, expected) => {
    const effective = resolvePolicy({ ...input, defaults: { ...defaults, ...input.defaults } });
    for (const [field, [value, source]] of Object.entries(expected)) {
      expect({ field, value: effective.values[field as keyof typeof effective.values] }).toEqual({ field, value });
      expect({ field, source: effective.sources[field as keyof typeof effective.sources] }).toEqual({ field, source });
    }
    // The answer fits the control contract.
    expect(EffectivePolicySchema.parse(effective)).toEqual(effective);
  });

  it('does not share the policy objects it was given', () => {
    const tool: ToolPolicy = { hiddenParams: { a: 1 } };
    const effective = resolvePolicy({ defaults, tool });
    effective.values.hiddenParams.b = 2;
    expect(tool.hiddenParams).toEqual({ a: 1 });
  });
});
