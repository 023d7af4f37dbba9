import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { exposeTool, hiddenParamsSent, prepareArguments } from '../../electron/core/policy/schema-rewrite.js';

const echo: Tool = {
  name: 'echo',
  description: 'Echoes back the input',
  inputSchema: {
    type: 'object',
    properties: { message: { type: 'string' }, times: { type: 'integer' } },
    required: ['message'],
  },
  outputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  annotations: { readOnlyHint: true },
};

const nested: Tool = {
  name: 'search',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string' },
      options: {
        type: 'object',
        properties: { token: { type: 'string' }, limit: { type: 'integer' } },
        required: ['token'],
      },
      token: { type: 'string' },
    },
    required: ['query', 'token', 'options'],
    additionalProperties: false,
    $defs: { token: { type: 'string' } },
  },
};

const bare: Tool = { name: 'ping', inputSchema: { type: 'object' } };

const none = { description: null, hiddenParams: {} };

type Row = [label: string, tool: Tool, policy: { description: string | null; hiddenParams: Record<string, unknown> }, expected: Tool];

const table: Row[] = [
  ['no policy: the tool unchanged', echo, none, echo],
  ['description override', echo, { description: 'Say it back', hiddenParams: {} }, { ...echo, description: 'Say it back' }],
  ['empty description override is still an override', echo, { description: '', hiddenParams: {} }, { ...echo, description: '' }],
  [
    'hidden required parameter: gone from properties and required (empty required dropped)',
    echo,
    { description: null, hiddenParams: { message: 'hi' } },
    { ...echo, inputSchema: { type: 'object', properties: { times: { type: 'integer' } } } },
  ],
  [
    'hidden optional parameter: required untouched',
    echo,
    { description: null, hiddenParams: { times: 2 } },
    { ...echo, inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } },
  ],
  [
    'nested schema: only the top-level parameter goes; nested "token" and $defs stay',
    nested,
    { description: null, hiddenParams: { token: 'secret' } },
    {
      ...nested,
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string' },
          options: {
            type: 'object',
            properties: { token: { type: 'string' }, limit: { type: 'integer' } },
            required: ['token'],
          },
        },
        required: ['query', 'options'],
        additionalProperties: false,
        $defs: { token: { type: 'string' } },
      },
    },
  ],
  [
    'hiding a whole object parameter',
    nested,
    { description: 'Find', hiddenParams: { options: { token: 't', limit: 3 } } },
    {
      ...nested,
      description: 'Find',
      inputSchema: {
        type: 'object',
        properties: { query: { type: 'string' }, token: { type: 'string' } },
        required: ['query', 'token'],
        additionalProperties: false,
        $defs: { token: { type: 'string' } },
      },
    },
  ],
  ['a tool without properties', bare, { description: null, hiddenParams: { x: 1 } }, bare],
  ['a hidden parameter the schema does not list changes nothing else', echo, { description: null, hiddenParams: { other: 1 } }, echo],
];

describe('exposeTool', () => {
  it.each(table)('%s', (_label, tool, policy, expected) => {
    const before = structuredClone(tool);
    const exposed = exposeTool(tool, policy);
    expect(exposed).toEqual(expected);
    expect(tool).toEqual(before); // the upstream definition is never changed
    expect(exposed.outputSchema).toEqual(tool.outputSchema);
  });
});

/** Shapes with branches (anyOf, oneOf, allOf), as pydantic, zod unions and hand-written schemas give them. */
const union: Tool = {
  name: 'find',
  inputSchema: {
    type: 'object',
    anyOf: [
      { properties: { token: { type: 'string' }, q: { type: 'string' } }, required: ['token', 'q'] },
      { properties: { token: { type: 'string' }, id: { type: 'integer' } }, required: ['token', 'id'] },
    ],
  },
};

const required: Tool = {
  name: 'search',
  inputSchema: {
    type: 'object',
    properties: { token: { type: 'string' }, q: { type: 'string' } },
    allOf: [{ required: ['token'] }],
    required: ['q'],
  },
};

const nestedBranches: Tool = {
  name: 'lookup',
  inputSchema: {
    type: 'object',
    properties: { q: { type: 'string' } },
    oneOf: [
      { allOf: [{ properties: { token: { type: 'string' } } }, { required: ['token', 'q'] }] },
      { properties: { key: { type: 'string' } }, required: ['key'], additionalProperties: false },
      true,
    ],
  },
};

const propertyUnion: Tool = {
  name: 'nullable',
  inputSchema: {
    type: 'object',
    properties: {
      q: { type: 'string' },
      filter: { anyOf: [{ type: 'object', properties: { token: { type: 'string' } }, required: ['token'] }, { type: 'null' }] },
    },
    required: ['q'],
  },
};

const branchTable: Row[] = [
  [
    'anyOf union: the hidden parameter goes from every branch',
    union,
    { description: null, hiddenParams: { token: 'secret' } },
    {
      ...union,
      inputSchema: {
        type: 'object',
        anyOf: [
          { properties: { q: { type: 'string' } }, required: ['q'] },
          { properties: { id: { type: 'integer' } }, required: ['id'] },
        ],
      },
    },
  ],
  [
    'allOf branch that only required it: left empty (valid, accepts anything)',
    required,
    { description: null, hiddenParams: { token: 'secret' } },
    { ...required, inputSchema: { type: 'object', properties: { q: { type: 'string' } }, allOf: [{}], required: ['q'] } },
  ],
  [
    'oneOf with allOf inside a branch: followed down; other branches and non-object branches kept',
    nestedBranches,
    { description: null, hiddenParams: { token: 'secret' } },
    {
      ...nestedBranches,
      inputSchema: {
        type: 'object',
        properties: { q: { type: 'string' } },
        oneOf: [
          { allOf: [{ properties: {} }, { required: ['q'] }] },
          { properties: { key: { type: 'string' } }, required: ['key'], additionalProperties: false },
          true,
        ],
      },
    },
  ],
  [
    'anyOf inside a property (a nullable object): not top-level, left alone',
    propertyUnion,
    { description: null, hiddenParams: { token: 'secret' } },
    propertyUnion,
  ],
];

describe('exposeTool with anyOf, oneOf and allOf', () => {
  it.each(branchTable)('%s', (_label, tool, policy, expected) => {
    const before = structuredClone(tool);
    expect(exposeTool(tool, policy)).toEqual(expected);
    expect(tool).toEqual(before);
  });

  it('branches nested past the depth limit are passed on as they are', () => {
    let branch: Record<string, unknown> = { required: ['token'] };
    for (let i = 0; i < 20; i++) branch = { allOf: [branch] };
    const deep: Tool = { name: 'deep', inputSchema: { type: 'object', allOf: [branch] } };
    const exposed = JSON.stringify(exposeTool(deep, { description: null, hiddenParams: { token: 1 } }).inputSchema);
    expect(exposed).toContain('token');
    expect(exposed.split('allOf').length).toBe(JSON.stringify(deep.inputSchema).split('allOf').length);
  });
});

type ArgRow = [
  label: string,
  client: Record<string, unknown> | undefined,
  policy: { hiddenParams: Record<string, unknown>; paramOverrides: Record<string, unknown> },
  expected: Record<string, unknown>,
];

const argTable: ArgRow[] = [
  ['no policy: the client arguments', { a: 1 }, { hiddenParams: {}, paramOverrides: {} }, { a: 1 }],
  ['no arguments at all', undefined, { hiddenParams: {}, paramOverrides: {} }, {}],
  ['hidden parameter injected', { message: 'hi' }, { hiddenParams: { root: '/data' }, paramOverrides: {} }, { message: 'hi', root: '/data' }],
  ['hidden parameter overwrites what the client sent', { root: '/etc' }, { hiddenParams: { root: '/data' }, paramOverrides: {} }, { root: '/data' }],
  ['override wins over the client', { limit: 100, q: 'x' }, { hiddenParams: {}, paramOverrides: { limit: 5 } }, { limit: 5, q: 'x' }],
  ['override added when the client did not send it', { q: 'x' }, { hiddenParams: {}, paramOverrides: { limit: 5 } }, { q: 'x', limit: 5 }],
  ['falsy injected values are injected', {}, { hiddenParams: { a: 0, b: false, c: '' }, paramOverrides: {} }, { a: 0, b: false, c: '' }],
  ['object values', { opts: { x: 1 } }, { hiddenParams: { opts: { y: 2 } }, paramOverrides: {} }, { opts: { y: 2 } }],
];

describe('prepareArguments', () => {
  it.each(argTable)('%s', (_label, client, policy, expected) => {
    const before = structuredClone(client);
    expect(prepareArguments(client, policy)).toEqual(expected);
    expect(client).toEqual(before);
  });

  it('injects copies, so the stored policy cannot be changed through the arguments', () => {
    const policy = { hiddenParams: { opts: { y: 2 } }, paramOverrides: {} };
    const args = prepareArguments({}, policy);
    (args.opts as { y: number }).y = 99;
    expect(policy.hiddenParams.opts.y).toBe(2);
  });

  it('names hidden parameters a client sent anyway', () => {
    expect(hiddenParamsSent({ root: '/etc', q: 1 }, { hiddenParams: { root: '/data', key: 'k' } })).toEqual(['root']);
    expect(hiddenParamsSent(undefined, { hiddenParams: { root: '/data' } })).toEqual([]);
  });
});
