/**
 * Hidden tools and names (audit round 2): two servers with the prefix off both offer `echo`; hiding the
 * one that won the name gives it to the other server's `echo`, the hidden one stays known (the window
 * lists it to show it again), and the names of tools not hidden stay as they were.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { Catalog, type CatalogSource, type ToolShape } from '../../electron/core/catalog/catalog.js';

const tool = (name: string, description = name): Tool => ({ name, description, inputSchema: { type: 'object' } });
const source = (id: string, tools: Tool[], prefix = false): CatalogSource => ({
  id,
  prefix,
  tools,
  resources: [],
  resourceTemplates: [],
  prompts: [],
});

/** The catalog of `sources` with the tools named `server/tool` in `hidden` hidden. */
function build(sources: CatalogSource[], hidden: string[] = []) {
  const catalog = new Catalog();
  catalog.rebuild(sources, {
    maxLength: 48,
    ownTools: () => [],
    mayRewriteResult: () => false,
    toolShape: (id, t): ToolShape => (hidden.includes(`${id}/${t.name}`) ? { state: 'hidden', reason: 'policy' } : { state: 'direct' }),
  });
  const names = Object.fromEntries(catalog.toolEntries().map((e) => [`${e.serverId}/${e.original}`, { name: e.name, state: e.state }]));
  return { catalog, names };
}

describe('hidden tools in name assignment', () => {
  const sources = [
    source('e1', [tool('echo', 'first'), tool('add')]),
    source('e2', [tool('echo', 'second'), tool('sum')]),
    source('p', [tool('echo')], true),
  ];

  it('gives the name of a hidden clash winner to the other server, keeping the hidden one known', () => {
    const before = build(sources);
    expect(before.names['e1/echo']).toEqual({ name: 'echo', state: 'direct' });
    expect(before.names['e2/echo']).toBeUndefined();
    expect(before.catalog.clashes.map((c) => `${c.serverId}/${c.name}`)).toEqual(['e2/echo']);

    const after = build(sources, ['e1/echo']);
    expect(
      after.catalog
        .listTools()
        .filter((t) => t.name === 'echo')
        .map((t) => t.description),
    ).toEqual(['second']);
    expect(after.names['e2/echo']).toEqual({ name: 'echo', state: 'direct' });
    expect(after.names['e1/echo']!.state).toBe('hidden');
    expect(after.names['e1/echo']!.name).toMatch(/^e1__echo_[0-9a-f]{6}$/);
    expect(after.catalog.clashes).toEqual([]);
    // Every other tool keeps its name.
    for (const key of ['e1/add', 'e2/sum', 'p/echo']) expect(after.names[key]).toEqual(before.names[key]);
  });

  it('a hidden tool whose name no one else wants keeps it', () => {
    const { names } = build(sources, ['e1/add', 'p/echo']);
    expect(names['e1/add']).toEqual({ name: 'add', state: 'hidden' });
    expect(names['p/echo']).toEqual({ name: 'p__echo', state: 'hidden' });
    expect(names['e1/echo']).toEqual({ name: 'echo', state: 'direct' });
  });
});
