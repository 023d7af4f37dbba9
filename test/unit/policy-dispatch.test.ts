import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import {
  createDispatch,
  DISPATCH_TOOL_NAME,
  selectDirectTools,
  type DispatchDeps,
  type DispatchEntry,
} from '../../electron/core/policy/dispatch-tool.js';
import { ToolSearch, toolTerms } from '../../electron/core/policy/tool-search.js';
import { DEFAULT_WEIGHTS } from '../../electron/core/policy/search-weights.js';
import { loadQueries, loadTools } from '../bench/search-eval.js';

const obj = (properties: Record<string, object>, required: string[] = []) => ({ type: 'object' as const, properties, required });

/** Names and descriptions as server-filesystem, server-memory and server-everything publish them. */
const TOOLS: DispatchEntry[] = [
  {
    name: 'fs__read_text_file',
    server: 'fs',
    original: 'read_text_file',
    description: 'Read the complete contents of a file from the file system as text. Handles various text encodings.',
    inputSchema: obj({ path: { type: 'string' }, head: { type: 'number' } }, ['path']),
  },
  {
    name: 'fs__write_file',
    server: 'fs',
    original: 'write_file',
    description: 'Create a new file or completely overwrite an existing file with new content.',
    inputSchema: obj({ path: { type: 'string' }, content: { type: 'string' } }, ['path', 'content']),
  },
  {
    name: 'fs__list_directory',
    server: 'fs',
    original: 'list_directory',
    description: 'Get a detailed listing of all files and directories in a specified path.',
    inputSchema: obj({ path: { type: 'string' } }, ['path']),
  },
  {
    name: 'fs__search_files',
    server: 'fs',
    original: 'search_files',
    description: 'Recursively search for files and directories matching a pattern.',
    inputSchema: obj({ path: { type: 'string' }, pattern: { type: 'string' } }, ['path', 'pattern']),
  },
  {
    name: 'memory__create_entities',
    server: 'memory',
    original: 'create_entities',
    description: 'Create multiple new entities in the knowledge graph',
    inputSchema: obj({ entities: { type: 'array' } }, ['entities']),
  },
  {
    name: 'memory__search_nodes',
    server: 'memory',
    original: 'search_nodes',
    description: 'Search for nodes in the knowledge graph based on a query',
    inputSchema: obj({ query: { type: 'string' } }, ['query']),
  },
  { name: 'memory__read_graph', server: 'memory', original: 'read_graph', description: 'Read the entire knowledge graph', inputSchema: obj({}) },
  {
    name: 'everything__echo',
    server: 'everything',
    original: 'echo',
    description: 'Echoes back the input',
    inputSchema: obj({ message: { type: 'string' } }, ['message']),
  },
  {
    name: 'everything__get-sum',
    server: 'everything',
    original: 'get-sum',
    description: 'Returns the sum of two numbers',
    inputSchema: obj({ a: { type: 'number' }, b: { type: 'number' } }, ['a', 'b']),
  },
];

function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

function setup(overrides: Partial<DispatchDeps> = {}) {
  const calls: { name: string; args: Record<string, unknown>; opts: { resultToSpill?: boolean } }[] = [];
  let tools = TOOLS;
  const dispatch = createDispatch({
    tools: () => tools,
    call: async (name, args, opts) => {
      calls.push({ name, args, opts });
      return { content: [{ type: 'text', text: `called ${name}` }] };
    },
    read: async (args) => ({ content: [{ type: 'text', text: `read ${JSON.stringify(args)}` }] }),
    loadSpilledJson: async () => {
      throw new Error('no such handle');
    },
    ...overrides,
  });
  return { dispatch, calls, setTools: (next: DispatchEntry[]) => (tools = next) };
}

describe('toolTerms', () => {
  it.each([
    ['read_file', ['read', 'file']],
    ['fs__list-directory', ['fs', 'list', 'directory']],
    ['getUserByID', ['get', 'User', 'By', 'ID']],
    ['HTTPRequest', ['HTTP', 'Request']],
    ['Read the file.', ['Read', 'the', 'file']],
  ])('%s', (text, terms) => {
    expect(toolTerms(text)).toEqual(terms);
  });
});

describe('dispatch search', () => {
  it.each([
    ['read file contents', 'fs__read_text_file'],
    ['knowledge graph nodes', 'memory__search_nodes'],
    ['list directory', 'fs__list_directory'],
    ['add two numbers sum', 'everything__get-sum'],
    ['echo', 'everything__echo'],
    ['write a file', 'fs__write_file'],
  ])('"%s" ranks %s first', (query, best) => {
    const hits = new ToolSearch().search(TOOLS, query, 5);
    expect(hits[0].name).toBe(best);
    const scores = hits.map((h) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('answers with top-k and scores, best first', async () => {
    const { dispatch } = setup();
    const result = await dispatch.handle({ action: 'search', query: 'search files', limit: 2 });
    expect(result.isError).toBeUndefined();
    const lines = textOf(result).split('\n');
    expect(lines[0]).toBe('2 matches for "search files", best first:');
    expect(lines[1]).toMatch(/^1\. fs__search_files \(fs, score \d+\.\d\d; matched search, files\): Recursively search/);
    expect(lines).toHaveLength(3);
  });

  it("orders with the learned re-ranker, not the ranker's order alone", async () => {
    const tools = loadTools().map((t) => ({ ...t, inputSchema: { type: 'object' as const, ...t.inputSchema } }));
    const { dispatch, setTools } = setup();
    setTools(tools);
    const alone = new ToolSearch();
    const learned = new ToolSearch(DEFAULT_WEIGHTS, { rerank: true });
    const top = (s: ToolSearch, query: string) => s.search(tools, query, 5).map((h) => h.name);
    // A tuning query whose first five the re-ranker puts in another order.
    const query = loadQueries().find((q) => q.split === 'tune' && top(alone, q.query).join() !== top(learned, q.query).join())?.query;
    expect(query).toBeDefined();
    const listed = textOf(await dispatch.handle({ action: 'search', query: query!, limit: 5 }))
      .split('\n')
      .slice(1)
      .map((line) => /^\d+\. (\S+)/.exec(line)?.[1]);
    expect(listed).toEqual(top(learned, query!));
  });

  it('rebuilds the index when the tool list changes', async () => {
    const { dispatch, setTools } = setup();
    expect(textOf(await dispatch.handle({ action: 'search', query: 'weather forecast' }))).toMatch(/No tools match/);
    setTools([...TOOLS, { name: 'wx__forecast', server: 'wx', description: 'Weather forecast for a city', inputSchema: obj({}) }]);
    expect(textOf(await dispatch.handle({ action: 'search', query: 'weather forecast' }))).toMatch(/1\. wx__forecast/);
  });

  it('refuses an empty query', async () => {
    const { dispatch } = setup();
    const result = await dispatch.handle({ action: 'search', query: '  ' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/search: "query" needs the words/);
  });
});

describe('dispatch list and describe', () => {
  it('lists tools by server, with schemas on request', async () => {
    const { dispatch } = setup();
    const text = textOf(await dispatch.handle({ action: 'list' }));
    expect(text.split('\n')[0]).toMatch(/^9 tools on 3 servers\./);
    expect(text).toContain('everything (2):\n- everything__echo: Echoes back the input\n- everything__get-sum: Returns the sum of two numbers');
    expect(text).not.toContain('"properties"');
    const one = textOf(await dispatch.handle({ action: 'list', server: 'memory', schemas: true }));
    expect(one.split('\n')[0]).toMatch(/^3 tools on 1 server\./);
    expect(one).toContain('  input: {"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}');
    const none = await dispatch.handle({ action: 'list', server: 'nope' });
    expect(none.isError).toBe(true);
    expect(textOf(none)).toMatch(/no server "nope".*everything, fs, memory/);
  });

  it('describes one tool with its full schema, by exposed or unique original name', async () => {
    const { dispatch } = setup();
    const described = JSON.parse(textOf(await dispatch.handle({ action: 'describe', name: 'fs__read_text_file' })));
    expect(described).toEqual({
      name: 'fs__read_text_file',
      server: 'fs',
      description: TOOLS[0].description,
      inputSchema: TOOLS[0].inputSchema,
    });
    expect(JSON.parse(textOf(await dispatch.handle({ action: 'describe', name: 'echo' }))).name).toBe('everything__echo');
  });

  it('an unknown tool is an error that suggests near names', async () => {
    const { dispatch, calls } = setup();
    for (const action of ['describe', 'call']) {
      const result = await dispatch.handle({ action, name: 'fs__read_fil' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^Unknown tool "fs__read_fil"\. Did you mean: fs__read_text_file/);
    }
    expect(calls).toEqual([]);
  });

  it('bad actions and arguments are clear errors', async () => {
    const { dispatch } = setup();
    expect(textOf(await dispatch.handle({ action: 'explode' }))).toBe('"action" must be one of list, search, describe, call, read.');
    expect(textOf(await dispatch.handle(undefined))).toMatch(/"action" must be one of/);
    expect(textOf(await dispatch.handle({ action: 'describe' }))).toMatch(/describe: "name"/);
    const stray = await dispatch.handle({ action: 'call', name: 'everything__echo', message: 'hi' });
    expect(stray.isError).toBe(true);
    expect(textOf(stray)).toBe('call: unexpected "message"; put the tool\'s own arguments under "arguments".');
  });
});

describe('dispatch call and read', () => {
  it('calls with inline arguments (object or JSON string) and passes resultToSpill', async () => {
    const { dispatch, calls } = setup();
    expect(textOf(await dispatch.handle({ action: 'call', name: 'everything__echo', arguments: { message: 'hi' } }))).toBe('called everything__echo');
    await dispatch.handle({ action: 'call', name: 'get-sum', arguments: '{"a":1,"b":2}', resultToSpill: true });
    expect(calls).toEqual([
      { name: 'everything__echo', args: { message: 'hi' }, opts: {} },
      { name: 'everything__get-sum', args: { a: 1, b: 2 }, opts: { resultToSpill: true } },
    ]);
    const bad = await dispatch.handle({ action: 'call', name: 'everything__echo', arguments: '[1]' });
    expect(textOf(bad)).toBe('call: "arguments" must be an object, not an array.');
  });

  it('takes arguments from a spilled JSON result, inline arguments winning', async () => {
    const spilled = new Map<string, unknown>([
      ['k3j5x2abq7mz', { a: 40, b: 1 }],
      ['aaaaaaaaaaaa', [1, 2, 3]],
    ]);
    const { dispatch, calls } = setup({
      loadSpilledJson: async (handle) => {
        if (!spilled.has(handle)) throw new Error(`No spilled result has the handle "${handle}".`);
        return spilled.get(handle);
      },
    });
    await dispatch.handle({ action: 'call', name: 'everything__get-sum', argumentsFrom: 'k3j5x2abq7mz', arguments: { b: 2 } });
    expect(calls[0].args).toEqual({ a: 40, b: 2 });
    const notObject = await dispatch.handle({ action: 'call', name: 'everything__get-sum', argumentsFrom: 'aaaaaaaaaaaa' });
    expect(textOf(notObject)).toBe('call: argumentsFrom "aaaaaaaaaaaa" holds an array; it must hold a JSON object of arguments.');
    const missing = await dispatch.handle({ action: 'call', name: 'everything__get-sum', argumentsFrom: 'zzzzzzzzzzzz' });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toBe('call: argumentsFrom "zzzzzzzzzzzz": No spilled result has the handle "zzzzzzzzzzzz".');
    expect(calls).toHaveLength(1);
  });

  it('a call that throws becomes an isError result', async () => {
    const { dispatch } = setup({
      call: async () => {
        throw new Error('Server "fs" is not available right now');
      },
    });
    const result = await dispatch.handle({ action: 'call', name: 'fs__write_file', arguments: {} });
    expect(result).toEqual({
      content: [{ type: 'text', text: 'Calling "fs__write_file" failed: Server "fs" is not available right now' }],
      isError: true,
    });
  });

  it('read passes everything but the action to read_result', async () => {
    const { dispatch } = setup();
    expect(textOf(await dispatch.handle({ action: 'read', handle: 'k3j5x2abq7mz', op: 'head', lines: 3 }))).toBe(
      'read {"handle":"k3j5x2abq7mz","op":"head","lines":3}',
    );
  });
});

describe('the dispatch tool definition', () => {
  it('names the servers behind it and takes an action', () => {
    const { dispatch, setTools } = setup();
    expect(dispatch.tool.name).toBe(DISPATCH_TOOL_NAME);
    expect(dispatch.tool.description).toContain('Servers behind it: everything (2), fs (4), memory (3).');
    expect(dispatch.tool.inputSchema.required).toEqual(['action']);
    setTools([]);
    expect(dispatch.tool.description).not.toContain('Servers behind it');
  });
});

describe('selectDirectTools', () => {
  const entries = [{ name: 'a' }, { name: 'b' }, { name: 'c' }, { name: 'd' }, { name: 'e' }];

  it.each([
    ['no cap', null, {}, ['a', 'b', 'c', 'd', 'e'], []],
    ['under the cap', 10, {}, ['a', 'b', 'c', 'd', 'e'], []],
    ['least used go behind dispatch', 3, { a: 1, b: 9, c: 0, d: 5, e: 2 }, ['b', 'd', 'e'], ['a', 'c']],
    ['ties broken by name', 2, { c: 3, d: 3, e: 3 }, ['c', 'd'], ['a', 'b', 'e']],
    ['no usage at all: first names stay', 2, {}, ['a', 'b'], ['c', 'd', 'e']],
    ['cap 0', 0, { a: 5 }, [], ['a', 'b', 'c', 'd', 'e']],
  ] as const)('%s', (_label, cap, usage, direct, dispatched) => {
    const result = selectDirectTools(entries, cap, usage);
    expect(result.direct.map((e) => e.name)).toEqual(direct);
    expect(result.dispatched.map((e) => e.name)).toEqual(dispatched);
  });

  it('takes a Map of counts and gives the same answer for any input order', () => {
    const usage = new Map([
      ['e', 4],
      ['a', 3],
    ]);
    const one = selectDirectTools(entries, 2, usage);
    const two = selectDirectTools([...entries].reverse(), 2, usage);
    expect(one.direct.map((e) => e.name).sort()).toEqual(['a', 'e']);
    expect(two.direct.map((e) => e.name).sort()).toEqual(['a', 'e']);
  });
});
