/** ClashReports: which catalog clashes the log is told of after each rebuild, and in what words. */
import { describe, expect, it } from 'vitest';
import type { CatalogClash } from '../../electron/core/catalog/catalog.js';
import { ClashReports } from '../../electron/core/hub/catalog-clashes.js';

const tool: CatalogClash = {
  kind: 'tool',
  serverId: 'b',
  name: 'search',
  reason: '"search" from server "b" (no prefix) clashes with "search" from "a"',
};
const prompt: CatalogClash = { ...tool, kind: 'prompt', name: 'ask', reason: '"ask" from server "b" (no prefix) clashes with "ask" from "a"' };
const resource = (uri: string): CatalogClash => ({
  kind: 'resource',
  serverId: 'b',
  name: uri,
  reason: `"${uri}" from server "b" is offered by "a" too, which serves it`,
});
const messages = (reports: ClashReports, clashes: CatalogClash[]) => reports.fresh(clashes).map((e) => (e.type === 'log' ? e.message : e.type));

describe('ClashReports', () => {
  it('tells a clash when it appears, not while it stands, and again when it returns', () => {
    const reports = new ClashReports();
    expect(messages(reports, [tool])).toEqual([`Tool hidden: ${tool.reason}.`]);
    expect(messages(reports, [tool])).toEqual([]);
    expect(messages(reports, [tool, prompt])).toEqual([`Prompt hidden: ${prompt.reason}.`]);
    expect(messages(reports, [prompt])).toEqual([]);
    expect(messages(reports, [tool, prompt])).toEqual([`Tool hidden: ${tool.reason}.`]);
  });

  it("tells a server's hidden resources in one line, naming the first few", () => {
    const reports = new ClashReports();
    const uris = ['r://1', 'r://2', 'r://3', 'r://4', 'r://5'];
    expect(messages(reports, uris.map(resource))).toEqual([
      '5 resources of server "b" are hidden ("r://1", "r://2", "r://3" and 2 more): another server offers them too, which serves them; ' +
        "turn one of the two servers off to reach the other one's.",
    ]);
    expect(reports.fresh(uris.map(resource))).toEqual([]);
  });
});
