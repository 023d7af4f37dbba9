/**
 * An injected value (a hidden parameter's value, an override) is checked against the tool's input schema
 * in full when the policy is saved, through a real hub: bounds (server-everything's get-resource-links
 * takes at most 10), nested objects (server-memory's create_entities), a nullable integer (anyOf) and
 * `$ref`s into `$defs` and `definitions` (the fixture). A value the schema refuses would make every call
 * fail, so it is refused with the field named and what the schema wants; one it takes reaches the tool.
 * With the server idle (started on first use), the schema kept from its last run is used.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlDispatcher, hubHandlers } from '../../electron/core/control/control-handlers.js';
import { controlParts } from '../../electron/core/control/control-parts.js';
import { EVERYTHING, MEMORY, NODE, fixture, startTestHub, type TestHub } from '../support/hub-harness.js';
import { HubRuns, upstreamReady } from '../support/hub-runs.js';

const SCHEMAS = { type: 'stdio', command: NODE, args: [fixture('injected-schema-server.mjs')] };

const textOf = (r: unknown) => (r as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : '')).join('');

describe('injected values checked against the whole schema', () => {
  let t: TestHub;
  let client: Client;

  beforeAll(async () => {
    t = await startTestHub({
      version: 1,
      servers: {
        everything: { type: 'stdio', command: NODE, args: [EVERYTHING, 'stdio'] },
        memory: { type: 'stdio', command: NODE, args: [MEMORY] },
        sch: SCHEMAS,
      },
      settings: { port: 0 },
    });
    await Promise.all(['everything', 'memory', 'sch'].map((s) => t.waitForStatus(s, 'ready')));
    client = await t.connect();
  }, 60_000);
  afterAll(async () => t?.stop());

  const setTool = (server: string, tool: string, policy: unknown) => t.api('policies.setTool', { server, tool, policy });

  it('refuses a number past the bound the tool sets, as a hidden value or an override', async () => {
    const hidden = await setTool('everything', 'get-resource-links', { hiddenParams: { count: 50 } });
    expect(hidden).toMatchObject({ ok: false, code: 'invalid', field: 'tools.everything.get-resource-links.hiddenParams.count' });
    expect(hidden.message).toContain(
      'The hidden value of "count" must be at most 10, as the tool expects; it is 50. Change the value, then save again.',
    );
    const override = await setTool('everything', 'get-resource-links', { paramOverrides: { count: 0 } });
    expect(override).toMatchObject({ ok: false, field: 'tools.everything.get-resource-links.paramOverrides.count' });
    expect(override.message).toContain('must be at least 1');

    expect((await setTool('everything', 'get-resource-links', { hiddenParams: { count: 2 } })).ok).toBe(true);
    const result = (await client.callTool({ name: 'everything__get-resource-links', arguments: {} })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.content.filter((c) => c.type === 'resource_link')).toHaveLength(2);
    await t.api('policies.resetTool', { server: 'everything', tool: 'get-resource-links' });
  });

  it('refuses a value whose nested part the schema does not take, saying where', async () => {
    const wrongType = await setTool('memory', 'create_entities', { hiddenParams: { entities: [{ name: 1 }] } });
    expect(wrongType).toMatchObject({ ok: false, field: 'tools.memory.create_entities.hiddenParams.entities' });
    expect(wrongType.message).toContain('In the hidden value of "entities", entities[0].name must be text, as the tool expects; 1 is a number.');
    const missing = await setTool('memory', 'create_entities', { hiddenParams: { entities: [{ name: 'a', observations: [] }] } });
    expect(missing.message).toContain('entities[0] must have the field "entityType"');
    // Saving a value the schema takes calls nothing.
    expect((await setTool('memory', 'create_entities', { hiddenParams: { entities: [{ name: 'a', entityType: 't', observations: [] }] } })).ok).toBe(
      true,
    );
    await t.api('policies.resetTool', { server: 'memory', tool: 'create_entities' });
  });

  it('reads anyOf: text for a nullable integer is refused; a whole number or null is taken', async () => {
    const text = await setTool('sch', 'nullable', { hiddenParams: { limit: '5' } });
    expect(text).toMatchObject({ ok: false, field: 'tools.sch.nullable.hiddenParams.limit' });
    expect(text.message).toContain('The hidden value of "limit" must be a whole number or null, as the tool expects; "5" is text.');
    expect((await setTool('sch', 'nullable', { paramOverrides: { limit: null } })).ok).toBe(true);
    expect((await setTool('sch', 'nullable', { hiddenParams: { limit: 5 } })).ok).toBe(true);
    expect(textOf(await client.callTool({ name: 'sch__nullable', arguments: { q: 'hi' } }))).toBe('{"tool":"nullable","args":{"q":"hi","limit":5}}');
    await t.api('policies.resetTool', { server: 'sch', tool: 'nullable' });
  });

  it('follows a $ref into $defs or definitions (a schema with its own $id too)', async () => {
    const short = await setTool('sch', 'ref_param', { hiddenParams: { token: 'x' } });
    expect(short).toMatchObject({ ok: false, field: 'tools.sch.ref_param.hiddenParams.token' });
    expect(short.message).toContain('must be at least 3 characters long');
    expect((await setTool('sch', 'ref_param', { hiddenParams: { token: 'abc' } })).ok).toBe(true);

    const region = await setTool('sch', 'draft07', { paramOverrides: { region: 'asia' } });
    expect(region).toMatchObject({ ok: false, field: 'tools.sch.draft07.paramOverrides.region' });
    expect(region.message).toContain('must be one of "eu", "us"');
    expect((await setTool('sch', 'draft07', { paramOverrides: { region: 'eu' } })).ok).toBe(true);
    await t.api('policies.resetTool', { server: 'sch', tool: 'ref_param' });
    await t.api('policies.resetTool', { server: 'sch', tool: 'draft07' });
  });
});

it('checks against the schema kept from the last run while the server is idle', async () => {
  const runs = await HubRuns.open('policy-injected-values-');
  try {
    const config = { version: 1, servers: { sch: SCHEMAS } };
    // A long first backoff: nothing restarts the server behind the test's back.
    const options = { upstream: { backoffBaseMs: 60_000 } };
    const first = await runs.start({ version: 1, servers: { sch: { ...SCHEMAS, startMode: 'always' } } }, options);
    await upstreamReady(first, 'sch');
    await runs.stop(first);

    const hub = await runs.start(config, options);
    expect(hub.pool.get('sch')?.status).toBe('idle');
    const control = new ControlDispatcher(hubHandlers(controlParts(hub)));
    const refused = await control.dispatch('policies.setTool', { server: 'sch', tool: 'nullable', policy: { hiddenParams: { limit: '5' } } });
    expect(refused).toMatchObject({ ok: false, field: 'tools.sch.nullable.hiddenParams.limit' });
    expect(await control.dispatch('policies.setTool', { server: 'sch', tool: 'nullable', policy: { hiddenParams: { limit: 5 } } })).toMatchObject({
      ok: true,
    });
    expect(hub.pool.get('sch')?.status).toBe('idle');
  } finally {
    await runs.close();
  }
}, 60_000);
