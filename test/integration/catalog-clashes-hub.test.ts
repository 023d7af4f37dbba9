/**
 * Name clashes in the catalog as the event log tells them, through a real hub with two stdio servers
 * that offer the same tool, prompt and resource names with their prefix turned off: each clash is told
 * once, as what it is (tool, prompt, resource), and not again on every rebuild while it stands.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NODE, fixture } from '../support/hub-harness.js';
import { HubRuns, upstreamReady } from '../support/hub-runs.js';

const server = (name: string) => ({ type: 'stdio', command: NODE, args: [fixture('subscription-server.mjs'), name], prefix: false });

let runs: HubRuns;
beforeEach(async () => {
  runs = await HubRuns.open('spillway-clashes-');
});
afterEach(() => runs.close());

describe('catalog clashes in the log', () => {
  it('names each clash by its kind, once while it stands', async () => {
    const hub = await runs.start({ version: 1, servers: { one: server('one'), two: server('two') } });
    await Promise.all(['one', 'two'].map((id) => upstreamReady(hub, id)));
    // Rebuilds come with every list change; these stand for them.
    hub.refreshCatalog();
    hub.refreshCatalog();
    const told = hub.events
      .recent()
      .filter((e) => e.type === 'log' && / hidden/.test(e.message))
      .map((e) => (e.type === 'log' ? `${e.server}: ${e.message}` : ''));
    expect(told.sort()).toEqual([
      'two: Prompt hidden: "ask" from server "two" (no prefix) clashes with "ask" from "one"; turn the prefix back on for one of them.',
      'two: Resource hidden: "shared://x" from server "two" is offered by "one" too, which serves it; ' +
        "turn one of the two servers off to reach the other one's.",
      'two: Tool hidden: "notify" from server "two" (no prefix) clashes with "notify" from "one"; turn the prefix back on for one of them.',
      'two: Tool hidden: "state" from server "two" (no prefix) clashes with "state" from "one"; turn the prefix back on for one of them.',
    ]);
  });
});
