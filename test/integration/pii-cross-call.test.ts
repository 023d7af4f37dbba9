/**
 * PII placeholders across calls, with a server that keeps what it is sent (server-memory): the
 * placeholder one call stored is never restored by a later call as that call's value. Before tags,
 * both calls sent "[EMAIL_1]", and a search for bob's address returned alice's entity with bob's address.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEMORY, NODE, startTestHub, type TestHub } from '../support/hub-harness.js';

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

describe('PII placeholders across calls', () => {
  let t: TestHub;
  let client: Client;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'spillway-pii-cross-'));
    t = await startTestHub({
      version: 1,
      servers: { mem: { type: 'stdio', command: NODE, args: [MEMORY], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } } },
      settings: { port: 0 },
      policies: {
        tools: {
          mem: {
            create_entities: { pii: { types: ['email'] } },
            search_nodes: { pii: { types: ['email'] } },
          },
        },
      },
    });
    await t.waitForStatus('mem', 'ready');
    client = await t.connect();
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("a search for bob's address does not show alice's record with bob's address", async () => {
    const created = text(
      (await client.callTool({
        name: 'mem__create_entities',
        arguments: { entities: [{ name: 'Alice', entityType: 'person', observations: ['email alice@example.com'] }] },
      })) as CallToolResult,
    );
    // The creating call restores its own placeholder.
    expect(created).toContain('alice@example.com');
    const found = text((await client.callTool({ name: 'mem__search_nodes', arguments: { query: 'bob@example.org' } })) as CallToolResult);
    expect(found).not.toContain('bob@example.org');
    expect(found).not.toContain('Alice');
    // The server keeps the first call's tagged placeholder; a later unmasked read shows it as it is.
    const graph = text((await client.callTool({ name: 'mem__read_graph', arguments: {} })) as CallToolResult);
    expect(graph).toMatch(/email \[EMAIL_1_[a-z][a-z0-9]{5}\]/);
    expect(graph).not.toContain('alice@example.com');
  });
});
