import { describe, expect, it } from 'vitest';
import {
  emptyPolicies,
  GlobalPolicyDefaultsSchema,
  validatePolicies,
  policiesOf,
  withoutServer,
  withServerPolicies,
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

/** Parameters of every JSON Schema type (server-everything's echo takes `message`, a string); `later` has no schema yet. */
const typedKnown: KnownServers = {
  servers: {
    typed: {
      tools: ['echo', 'all'],
      inputSchemas: {
        echo: { properties: { message: { type: 'string' } } },
        all: {
          properties: {
            count: { type: 'integer' },
            ratio: { type: 'number' },
            flag: { type: 'boolean' },
            opts: { type: 'object' },
            tags: { type: 'array' },
            mode: { type: 'string', enum: ['fast', 'safe'] },
            level: { enum: [1, 2, 3] },
            either: { type: ['string', 'null'] },
            loose: {},
            odd: { type: 'any' },
            nested: { anyOf: [{ type: 'string' }, { type: 'number' }] },
          },
        },
      },
    },
    later: { tools: undefined },
    fs: { tools: ['list_directory'] },
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

/** A hidden value the tool's schema does not take would fail every call: refused, saying what it must be. */
const mistyped: [label: string, params: Record<string, unknown>, field: string, message: string][] = [
  [
    'a number for a string parameter',
    { message: 12345 },
    'tools.typed.echo.hiddenParams.message',
    'The hidden value of "message" must be text, as the tool expects; 12345 is a number. Change the value, then save again.',
  ],
  [
    'text for an integer',
    { count: '10' },
    'tools.typed.all.hiddenParams.count',
    'The hidden value of "count" must be a whole number, as the tool expects; "10" is text. Change the value, then save again.',
  ],
  [
    'a fraction for an integer',
    { count: 1.5 },
    'tools.typed.all.hiddenParams.count',
    'The hidden value of "count" must be a whole number, as the tool expects; 1.5 is a number with a fraction. Change the value, then save again.',
  ],
  [
    'text for a number',
    { ratio: '0.5' },
    'tools.typed.all.hiddenParams.ratio',
    'The hidden value of "ratio" must be a number, as the tool expects; "0.5" is text. Change the value, then save again.',
  ],
  [
    'text for a boolean',
    { flag: 'true' },
    'tools.typed.all.hiddenParams.flag',
    'The hidden value of "flag" must be true or false, as the tool expects; "true" is text. Change the value, then save again.',
  ],
  [
    'a list for an object',
    { opts: [1] },
    'tools.typed.all.hiddenParams.opts',
    'The hidden value of "opts" must be a JSON object, as the tool expects; [1] is a JSON list. Change the value, then save again.',
  ],
  [
    'an object for a list',
    { tags: { a: 1 } },
    'tools.typed.all.hiddenParams.tags',
    'The hidden value of "tags" must be a JSON list, as the tool expects; {"a":1} is a JSON object. Change the value, then save again.',
  ],
  [
    'a value outside the enum',
    { mode: 'quick' },
    'tools.typed.all.hiddenParams.mode',
    'The hidden value of "mode" must be one of "fast", "safe", as the tool expects; "quick" is not one of them. Change the value, then save again.',
  ],
  [
    'a value outside a typeless enum',
    { level: 4 },
    'tools.typed.all.hiddenParams.level',
    'The hidden value of "level" must be one of 1, 2, 3, as the tool expects; 4 is not one of them. Change the value, then save again.',
  ],
  [
    'a number for a string-or-null',
    { either: 7 },
    'tools.typed.all.hiddenParams.either',
    'The hidden value of "either" must be text or null, as the tool expects; 7 is a number. Change the value, then save again.',
  ],
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

  it.each(mistyped)('refuses a hidden value of the wrong type: %s', (_label, hiddenParams, field, message) => {
    const tool = field.split('.')[2];
    const result = validatePolicies({ tools: { typed: { [tool]: { hiddenParams } } } }, typedKnown);
    expect(result).toEqual({ ok: false, field, message: `${field}: ${message}` });
  });

  it('refuses an override of the wrong type too (it is injected the same way)', () => {
    const result = validatePolicies({ tools: { typed: { echo: { paramOverrides: { message: true } } } } }, typedKnown);
    expect(result).toMatchObject({ ok: false, field: 'tools.typed.echo.paramOverrides.message' });
    expect(result.ok || result.message).toMatch(/The override of "message" must be text, as the tool expects; true is true or false\./);
  });

  it('accepts values that fit their type, and any value where the type is unknown', () => {
    const fitting = {
      count: 3,
      ratio: 2,
      flag: false,
      opts: {},
      tags: [],
      mode: 'safe',
      level: 2,
      either: 'x',
      // No type, a type this check does not know, anyOf: left to the tool.
      loose: 12345,
      odd: 12345,
      nested: true,
    };
    expect(
      validatePolicies({ tools: { typed: { all: { hiddenParams: fitting }, echo: { hiddenParams: { message: '12345' } } } } }, typedKnown).ok,
    ).toBe(true);
    // A server not connected yet (no schema known): today's behaviour, any value.
    expect(validatePolicies({ tools: { later: { echo: { hiddenParams: { message: 12345 } } } } }, typedKnown).ok).toBe(true);
    // A tool without a schema for it.
    expect(validatePolicies({ tools: { fs: { list_directory: { paramOverrides: { path: 1 } } } } }, typedKnown).ok).toBe(true);
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

  it("takes out a server's policies and puts them back (Undo of a removal)", () => {
    const p = withServerPolicy(withToolPolicy(withToolPolicy(emptyPolicies(), 'fs', 'x', { hidden: true }), 'mem', 'y', { hidden: true }), 'fs', {
      exposure: 'dispatch',
    });
    const kept = policiesOf(p, 'fs');
    expect(kept).toEqual({ server: { exposure: 'dispatch' }, tools: { x: { hidden: true } } });
    expect(withServerPolicies(withoutServer(p, 'fs'), 'fs', kept)).toEqual(p);
    // Nothing kept: the server's entries (an older version's leftovers) are dropped.
    expect(policiesOf(p, 'none')).toEqual({});
    expect(withServerPolicies(p, 'fs', {})).toEqual(withoutServer(p, 'fs'));
    expect(policiesOf(p, 'constructor')).toEqual({});
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
