/**
 * A hidden parameter of a tool whose schema is a union (anyOf) or adds requirements in allOf, through the
 * real hub: tools/list shows it in no branch and requires it nowhere, and the upstream still gets the
 * hidden value. Before, only the top-level `properties` and `required` were edited, so the model saw
 * `token` in every anyOf branch, with `required: ["token", …]`.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

describe('hidden parameters in anyOf and allOf schemas', () => {
  let t: TestHub;
  let client: Client;
  beforeAll(async () => {
    t = await startTestHub({ mcpServers: { sch: nodeServer(fixture('union-schema-server.mjs')) } });
    await t.waitForStatus('sch', 'ready');
    client = await t.connect();
  }, 60_000);
  afterAll(async () => t?.stop());

  it.each(['any_of', 'all_of'])('%s: the model never sees the hidden parameter; the upstream gets its value', async (tool) => {
    const set = await t.api('policies.setTool', { server: 'sch', tool, policy: { hiddenParams: { token: 'SECRET' } } });
    expect(set.ok, set.message).toBe(true);
    const listed = (await client.listTools()).tools.find((x) => x.name === `sch__${tool}`);
    expect(listed).toBeDefined();
    expect(JSON.stringify(listed!.inputSchema)).not.toContain('token');

    const result = (await client.callTool({ name: `sch__${tool}`, arguments: { q: 'hi', token: 'FROM-MODEL' } })) as CallToolResult;
    // The server got the token: its echo of the arguments holds it, given back to the model as the placeholder.
    expect(JSON.parse(textOf(result))).toEqual({ tool, args: { q: 'hi', token: '[hidden: token]' } });
  });
});
