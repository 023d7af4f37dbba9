/**
 * Which server a resource URI is routed to when templates of several servers match it: the most specific
 * template (longest literal text before its first variable, then fewest variables), whatever the server
 * order; a listed resource's own server before any template.
 */
import type { Resource } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { Catalog, type CatalogSource } from '../../electron/core/catalog/catalog.js';

const source = (id: string, uriTemplates: string[], resources: Resource[] = []): CatalogSource => ({
  id,
  prefix: true,
  tools: [],
  resources,
  resourceTemplates: uriTemplates.map((uriTemplate) => ({ uriTemplate, name: uriTemplate })),
  prompts: [],
});

function build(sources: CatalogSource[]): Catalog {
  const catalog = new Catalog();
  catalog.rebuild(sources, { maxLength: 48, ownTools: () => [], mayRewriteResult: () => false });
  return catalog;
}

describe('resource URIs matched by several templates', () => {
  it('go to the template with the longest literal prefix, in either server order', () => {
    const wiki = source('wiki', ['notes://{+path}']);
    const team = source('team', ['notes://team/{name}']);
    for (const catalog of [build([wiki, team]), build([team, wiki])]) {
      expect(catalog.serverForUri('notes://team/alice')).toBe('team');
      expect(catalog.serverForUri('notes://home/index')).toBe('wiki');
    }
  });

  it('go to the template with fewer variables when the prefixes are as long', () => {
    const two = source('two', ['files://{dir}/{name}']);
    const one = source('one', ['files://{+path}']);
    expect(build([two, source('other', ['other://{id}'])]).serverForUri('files://docs/readme')).toBe('two');
    expect(build([two, one]).serverForUri('files://docs/readme')).toBe('one');
  });

  it('go to the server listing the exact URI before any template', () => {
    const catalog = build([source('wiki', ['notes://{+path}']), source('list', [], [{ uri: 'notes://team/bob', name: 'bob' }])]);
    expect(catalog.serverForUri('notes://team/bob')).toBe('list');
  });
});
