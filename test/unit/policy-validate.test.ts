import { describe, expect, it } from 'vitest';
import {
  emptyPolicies,
  GlobalPolicyDefaultsSchema,
  validatePolicies,
  withoutServer,
  withServerPolicy,
  withToolPolicy,
  type KnownServers,
} from '../../shared/policy.js';
import { policyApi } from '../../shared/api-policy.js';

const known: KnownServers = {
  servers: {
    fs: {
      tools: ['read_file', 'write_file', 'list_directory'],
      inputSchemas: {
        read_file: { properties: { path: { type: 'string' }, head: { type: 'number' } } },
        write_file: { properties: { path: {}, content: {} }, additionalProperties: true },
      },
    },
    // Configured but not connected yet: its tool list is unknown.
    later: { tools: undefined },
  },
};

type Bad = [label: string, policies: unknown, field: string, message: RegExp];

const refused: Bad[] = [
  [
    'unknown server in servers',
    { servers: { nope: { exposure: 'dispatch' } } },
    'servers.nope',
    /no server "nope" is configured \(configured: fs, later\)/,
  ],
  ['unknown server in tools', { tools: { nope: { x: {} } } }, 'tools.nope', /no server "nope"/],
  [
    'unknown tool',
    { tools: { fs: { read_fil: { hidden: true } } } },
    'tools.fs.read_fil',
    /server "fs" has no tool "read_fil" \(it has: read_file, write_file, list_directory\)/,
  ],
  [
    'hidden parameter without a value (null)',
    { tools: { fs: { read_file: { hiddenParams: { path: null } } } } },
    'tools.fs.read_file.hiddenParams.path',
    /needs a value to inject/,
  ],
  [
    'hidden parameter without a value (undefined)',
    { tools: { fs: { read_file: { hiddenParams: { path: undefined } } } } },
    'tools.fs.read_file.hiddenParams.path',
    /needs a value/,
  ],
  [
    'hidden parameter the tool does not have',
    { tools: { fs: { read_file: { hiddenParams: { pth: '/x' } } } } },
    'tools.fs.read_file.hiddenParams.pth',
    /no parameter "pth" \(it has: path, head\)/,
  ],
  [
    'override of a parameter the tool does not have',
    { tools: { fs: { read_file: { paramOverrides: { tail: 3 } } } } },
    'tools.fs.read_file.paramOverrides.tail',
    /no parameter "tail"/,
  ],
  [
    'a parameter both hidden and overridden',
    { tools: { fs: { read_file: { hiddenParams: { path: '/a' }, paramOverrides: { path: '/b' } } } } },
    'tools.fs.read_file.paramOverrides.path',
    /also a hidden parameter/,
  ],
  ['negative tool threshold', { tools: { fs: { read_file: { thresholdTokens: -5 } } } }, 'tools.fs.read_file.thresholdTokens', /at least 1 token/],
  ['negative server threshold', { servers: { fs: { thresholdTokens: -1 } } }, 'servers.fs.thresholdTokens', /at least 1/],
  ['negative cache TTL', { tools: { fs: { read_file: { cacheTtlSeconds: -1 } } } }, 'tools.fs.read_file.cacheTtlSeconds', /must not be negative/],
  ['unknown action', { tools: { fs: { read_file: { action: 'zip' } } } }, 'tools.fs.read_file.action', /./],
  ['misspelt field', { tools: { fs: { read_file: { hiden: true } } } }, 'tools.fs.read_file', /hiden/],
  [
    'non-JSON override value',
    { tools: { fs: { read_file: { paramOverrides: { head: Number.NaN } } } } },
    'tools.fs.read_file.paramOverrides.head',
    /JSON value/,
  ],
  ['unknown exposure', { servers: { fs: { exposure: 'sometimes' } } }, 'servers.fs.exposure', /./],
];

describe('validatePolicies', () => {
  it.each(refused)('refuses %s, naming the field', (_label, policies, field, message) => {
    const result = validatePolicies(policies, known);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.field).toBe(field);
    expect(result.message.startsWith(`${field}: `)).toBe(true);
    expect(result.message).toMatch(message);
  });

  it('accepts a valid set and fills the missing parts', () => {
    const result = validatePolicies(
      {
        servers: { fs: { exposure: 'dispatch', thresholdTokens: null, cacheTtlSeconds: 30 } },
        tools: {
          fs: {
            read_file: { description: 'Read one file', hiddenParams: { head: 10 }, action: 'compress', cacheErrors: true },
            // additionalProperties: true, so any parameter name is fine
            write_file: { paramOverrides: { mode: '0644' } },
          },
        },
      },
      known,
    );
    expect(result).toEqual({
      ok: true,
      value: {
        servers: { fs: { exposure: 'dispatch', thresholdTokens: null, cacheTtlSeconds: 30 } },
        tools: {
          fs: {
            read_file: { description: 'Read one file', hiddenParams: { head: 10 }, action: 'compress', cacheErrors: true },
            write_file: { paramOverrides: { mode: '0644' } },
          },
        },
      },
    });
    expect(validatePolicies({}, known)).toEqual({ ok: true, value: emptyPolicies() });
  });

  it('accepts any tool name for a server that has not connected yet (its policy must not be lost)', () => {
    const result = validatePolicies({ tools: { later: { anything: { hiddenParams: { token: 'x' } } } } }, known);
    expect(result.ok).toBe(true);
  });

  it('accepts falsy but present hidden values (0, false, "")', () => {
    const result = validatePolicies({ tools: { fs: { read_file: { hiddenParams: { head: 0, path: '' } } } } }, known);
    expect(result.ok).toBe(true);
  });
});

describe('policy edits (pure)', () => {
  it('sets, replaces and clears a tool policy without touching the input', () => {
    const base = emptyPolicies();
    const one = withToolPolicy(base, 'fs', 'read_file', { hidden: true });
    expect(base).toEqual(emptyPolicies());
    expect(one.tools).toEqual({ fs: { read_file: { hidden: true } } });
    const two = withToolPolicy(one, 'fs', 'write_file', { action: 'pass' });
    expect(Object.keys(two.tools.fs)).toEqual(['read_file', 'write_file']);
    const cleared = withToolPolicy(withToolPolicy(two, 'fs', 'read_file', {}), 'fs', 'write_file', undefined);
    expect(cleared.tools).toEqual({});
  });

  it('sets and clears a server policy, and forgets a server', () => {
    const p = withServerPolicy(withToolPolicy(emptyPolicies(), 'fs', 'x', { hidden: true }), 'fs', { exposure: 'dispatch' });
    expect(p.servers).toEqual({ fs: { exposure: 'dispatch' } });
    expect(withServerPolicy(p, 'fs', {}).servers).toEqual({});
    expect(withoutServer(p, 'fs')).toEqual(emptyPolicies());
  });
});

describe('global defaults and the contract', () => {
  it('has the documented defaults', () => {
    expect(GlobalPolicyDefaultsSchema.parse({})).toEqual({
      dispatchOnly: false,
      maxDirectTools: null,
      cacheReadOnlyTools: false,
      readOnlyCacheTtlSeconds: 300,
      pinning: true,
      encoding: 'auto',
    });
    expect(GlobalPolicyDefaultsSchema.safeParse({ maxDirectTools: -1 }).success).toBe(false);
  });

  it('parses requests with the policy schemas', () => {
    const ok = policyApi['policies.setTool'].req.safeParse({ server: 'fs', tool: 'read_file', policy: { hiddenParams: { path: '/a' } } });
    expect(ok.success).toBe(true);
    const bad = policyApi['policies.setTool'].req.safeParse({ server: 'fs', tool: 'read_file', policy: { hiddenParams: { path: null } } });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0].path).toEqual(['policy', 'hiddenParams', 'path']);
    expect(policyApi['pins.approve'].res.parse({ approved: true })).toEqual({ approved: true });
  });
});
