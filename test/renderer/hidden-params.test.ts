import { describe, expect, it } from 'vitest';
import { paramKind, paramText, parseParamValue, type ParamKind } from '../../renderer/src/lib/hidden-params.js';

describe('hidden parameter values, read by the parameter’s type', () => {
  const schema = {
    properties: {
      q: { type: 'string' },
      n: { type: 'number' },
      k: { type: ['integer', 'null'] },
      on: { type: 'boolean' },
      opts: { type: 'object' },
      tags: { type: 'array' },
      any: {},
      either: { type: ['string', 'number'] },
    },
  };

  it('finds the type in the input schema, and none where it is open or unknown', () => {
    expect(['q', 'n', 'k', 'on', 'opts', 'tags', 'any', 'either', 'missing', 'constructor'].map((p) => paramKind(schema, p))).toEqual([
      'string',
      'number',
      'integer',
      'boolean',
      'object',
      'array',
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(paramKind(undefined, 'q')).toBeUndefined();
  });

  it.each<[string, ParamKind | undefined, unknown]>([
    ['12345', 'string', '12345'],
    ['true', 'string', 'true'],
    ['"quoted"', 'string', '"quoted"'],
    [' 12 ', 'number', 12],
    ['1.5', 'number', 1.5],
    ['10', 'integer', 10],
    ['false', 'boolean', false],
    ['{"a": 1}', 'object', { a: 1 }],
    ['["a"]', 'array', ['a']],
    ['12345', undefined, 12345],
    ['/srv/data', undefined, '/srv/data'],
  ])('reads %j as a %s parameter', (text, kind, value) => {
    expect(parseParamValue('p', text, kind)).toEqual({ ok: true, value });
    // What the editor shows for the stored value reads back to the same value.
    expect(parseParamValue('p', paramText(value, kind), kind)).toEqual({ ok: true, value });
  });

  it.each<[string, ParamKind, RegExp]>([
    ['ten', 'number', /takes a number, such as 10/],
    ['1.5', 'integer', /takes a whole number/],
    ['yes', 'boolean', /takes true or false/],
    ['[1]', 'object', /takes a JSON object/],
    ['{a: 1}', 'object', /takes a JSON object/],
    ['a, b', 'array', /takes a JSON list/],
  ])('refuses %j for a %s parameter, saying what to type', (text, kind, message) => {
    const parsed = parseParamValue('p', text, kind);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toMatch(message);
  });

  it('refuses an empty value for any type, in words', () => {
    expect(parseParamValue('path', '  ', 'string')).toEqual({
      ok: false,
      message: 'Type a value for “path”: clients no longer send this parameter, so Spillway sends this value in its place.',
    });
  });

  it('shows text that would read as JSON quoted when the type is unknown, so it stays text', () => {
    expect(paramText('12345', undefined)).toBe('"12345"');
    expect(paramText('12345', 'string')).toBe('12345');
    expect(paramText('/srv', undefined)).toBe('/srv');
    expect(parseParamValue('p', paramText('12345', undefined), undefined)).toEqual({ ok: true, value: '12345' });
  });
});
