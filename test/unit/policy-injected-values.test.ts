/**
 * The hub's full check of injected values (electron/core/policy/injected-values.ts) through
 * validatePolicies, as policy-handlers.ts calls it: what it refuses and the plain message it gives,
 * beside the renderer's cheap check (type and enum only), which takes what it cannot read.
 */
import { describe, expect, it } from 'vitest';
import { injectedValueProblem } from '../../electron/core/policy/injected-values.js';
import { validatePolicies, type KnownInputSchema, type KnownServers } from '../../shared/policy.js';

const schema = {
  type: 'object',
  properties: {
    count: { type: 'number', minimum: 1, maximum: 10 },
    limit: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
    token: { $ref: '#/$defs/Token' },
    mode: { enum: ['fast', 'slow'] },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 2, uniqueItems: true },
    'a/b~c': { type: 'string', pattern: '^x' },
    nested: {
      type: 'object',
      properties: { id: {}, 'two words': { type: 'boolean' } },
      required: ['id'],
      additionalProperties: false,
    },
    remote: { $ref: 'https://example.com/elsewhere.json' },
    never: false,
  },
  $defs: { Token: { type: 'string', minLength: 3 } },
};

const known = (full: boolean): KnownServers => ({
  servers: { s: { tools: ['t'], inputSchemas: { t: schema as KnownInputSchema } } },
  ...(full ? { checkValue: injectedValueProblem } : {}),
});

/** The message the hub gives for one hidden value (undefined: taken). */
function hubSays(name: string, value: unknown): string | undefined {
  const result = validatePolicies({ tools: { s: { t: { hiddenParams: { [name]: value } } } } }, known(true));
  return result.ok ? undefined : result.message;
}

describe('injected values against the whole schema', () => {
  it.each([
    ['count', 50, 'The hidden value of "count" must be at most 10, as the tool expects; it is 50.'],
    ['count', 0, 'must be at least 1, as the tool expects; it is 0.'],
    ['count', 'many', 'must be a number, as the tool expects; "many" is text.'],
    ['limit', '5', 'must be a whole number or null, as the tool expects; "5" is text.'],
    ['limit', 1.5, 'must be a whole number or null, as the tool expects; 1.5 is a number.'],
    ['token', 'ab', 'must be at least 3 characters long'],
    ['mode', 'medium', 'must be one of "fast", "slow"'],
    ['tags', ['a', 1], 'In the hidden value of "tags", tags[1] must be text, as the tool expects; 1 is a number.'],
    ['tags', ['a', 'a'], 'must have no two items the same'],
    ['tags', ['a', 'b', 'c'], 'must have at most 2 items'],
    ['a/b~c', 'y', 'The hidden value of "a/b~c" must match the pattern ^x'],
    ['nested', { id: 1, 'two words': 'yes' }, 'In the hidden value of "nested", nested["two words"] must be true or false'],
    ['nested', {}, 'The hidden value of "nested" must have the field "id"'],
    ['nested', { id: 1, extra: 2 }, 'must not have the field "extra"'],
    ['never', 1, 'The hidden value of "never" must not be given'],
  ])('refuses %s = %j', (name, value, message) => {
    const said = hubSays(name, value);
    expect(said).toContain(message);
    expect(said).toMatch(/^tools\.s\.t\.hiddenParams\..+: .+ Change the value, then save again\.$/);
  });

  it.each([
    ['count', 10],
    ['limit', 7],
    ['token', 'abc'],
    ['mode', 'slow'],
    ['tags', ['a', 'b']],
    ['a/b~c', 'xy'],
    ['nested', { id: 'any', 'two words': true }],
    // A $ref to another document cannot be read here: the tool is left to say.
    ['remote', 1],
  ])('takes %s = %j', (name, value) => {
    expect(hubSays(name, value)).toBeUndefined();
  });

  it('checks overrides the same way, naming their field', () => {
    const result = validatePolicies({ tools: { s: { t: { paramOverrides: { count: 11 } } } } }, known(true));
    expect(result).toMatchObject({ ok: false, field: 'tools.s.t.paramOverrides.count' });
    expect(!result.ok && result.message).toContain('The override of "count" must be at most 10');
    // An override may be null (a hidden value may not: schema of the policy itself).
    expect(validatePolicies({ tools: { s: { t: { paramOverrides: { limit: null } } } } }, known(true)).ok).toBe(true);
  });

  it('is what the hub adds: the cheap check alone takes what only the full schema refuses', () => {
    for (const [name, value] of [
      ['count', 50],
      ['limit', '5'],
      ['token', 'ab'],
      ['tags', ['a', 1]],
    ] as const) {
      expect(validatePolicies({ tools: { s: { t: { hiddenParams: { [name]: value } } } } }, known(false)).ok).toBe(true);
    }
  });
});

describe('the full check on schemas written for other engines or with careless patterns', () => {
  function says(toolSchema: object, name: string, value: unknown): string | undefined {
    const servers: KnownServers = {
      servers: { s: { tools: ['t'], inputSchemas: { t: toolSchema as KnownInputSchema } } },
      checkValue: injectedValueProblem,
    };
    const result = validatePolicies({ tools: { s: { t: { hiddenParams: { [name]: value } } } } }, servers);
    return result.ok ? undefined : result.message;
  }

  it('runs an upstream pattern that backtracks for minutes on V8 in linear time, and still refuses what it does not match', () => {
    // On V8's engine this value takes tens of minutes against this pattern: the test would time out.
    const careless = { type: 'object', properties: { q: { type: 'string', pattern: '^(\\w+\\s?)*$' } } };
    expect(says(careless, 'q', 'sk_live_abcdefghijklmnopqrstuvwxyz-')).toMatch(/must match the pattern/);
    expect(says(careless, 'q', 'two words')).toBeUndefined();
  });

  it('keeps the type check for a parameter whose pattern no engine here reads (written for Python)', () => {
    for (const pattern of ['^[\\w-.]+$', '(?i)^[a-z0-9]+(?=x)$']) {
      const pythonic = { type: 'object', properties: { repo: { type: 'string', pattern } } };
      expect(says(pythonic, 'repo', 42), pattern).toMatch(/must be text/);
    }
  });

  it('follows a $ref to another parameter (as zod-to-json-schema writes a reused schema)', () => {
    const shared = { type: 'object', properties: { from: { type: 'string', format: 'date' }, to: { $ref: '#/properties/from' } } };
    expect(says(shared, 'to', 7)).toMatch(/must be text/);
  });
});
