/**
 * A tool that keeps its result as the upstream gave it (action pass, nothing spilled) but has a hidden
 * secret to replace in what comes back: its outputSchema is not listed, since the placeholder
 * `[hidden: api_key]` put into its structuredContent would no longer match it and the client's SDK would
 * throw "Structured content does not match the tool's output schema". A tool whose hidden values are
 * only settings (nothing replaced) keeps its outputSchema. A real hub over HTTP, the SDK Client (which
 * validates structuredContent against the listed schema) and a stdio server (secret-schema-server.mjs).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect, it } from 'vitest';
import { NODE, fixture, startTestHub } from '../support/hub-harness.js';

const SECRET = 'sk-Orchard7731Lane';

it('drops the outputSchema of a pass-through tool with a hidden secret, so its replaced structuredContent is accepted', async () => {
  const t = await startTestHub({
    version: 1,
    servers: { acct: { type: 'stdio', command: NODE, args: [fixture('secret-schema-server.mjs')] } },
    policies: {
      tools: {
        acct: {
          whoami: { action: 'pass', hiddenParams: { api_key: SECRET } },
          profile: { action: 'pass', hiddenParams: { owner: 'octocat' } },
        },
      },
    },
    settings: { port: 0 },
  });
  try {
    await t.waitForStatus('acct', 'ready');
    const c = await t.connect();
    const { tools } = await c.listTools();
    expect(tools.find((x) => x.name === 'acct__whoami')?.outputSchema).toBeUndefined();
    expect(tools.find((x) => x.name === 'acct__profile')?.outputSchema).toBeDefined();

    const whoami = (await c.callTool({ name: 'acct__whoami', arguments: {} })) as CallToolResult;
    expect(whoami.structuredContent).toEqual({ key: '[hidden: api_key]' });
    expect(JSON.stringify(whoami)).not.toContain(SECRET);
    const profile = (await c.callTool({ name: 'acct__profile', arguments: {} })) as CallToolResult;
    expect(profile.structuredContent).toEqual({ owner: 'octocat' });
  } finally {
    await t.stop();
  }
}, 60_000);
