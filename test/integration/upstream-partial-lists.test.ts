/**
 * A server that declares prompts and resources but answers resources/list and prompts/list with "Method
 * not found" (it implements only tools): the hub serves its tools, with no prompts or resources from it,
 * and its lists are read without those two (loadLists names each failed list once).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { loadLists } from '../../electron/core/upstream/upstream-lists.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

const SERVER = fixture('unlisted-prompts-server.mjs');

describe('a server without resources/list and prompts/list', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub(async () => ({ mcpServers: { partial: nodeServer(SERVER) } }));
  }, 60_000);
  afterAll(async () => {
    await hub?.stop();
  });

  it('is served: its tools are listed and called', async () => {
    await hub.waitForStatus('partial', 'ready');
    const c = await hub.connect();
    expect((await c.listTools()).tools.map((t) => t.name)).toContain('partial__hello');
    expect((await c.callTool({ name: 'partial__hello', arguments: {} })).content).toEqual([{ type: 'text', text: 'hi' }]);
    expect((await c.listPrompts()).prompts).toEqual([]);
  });

  it('has empty resource and prompt lists, each failed list named once', async () => {
    const direct = new Client({ name: 'direct', version: '1' });
    await direct.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER] }));
    const failed: string[] = [];
    try {
      const lists = await loadLists(direct, 5_000, (method) => void failed.push(method));
      expect(lists).toMatchObject({ resources: [], resourceTemplates: [], prompts: [] });
      expect(lists.tools.map((t) => t.name)).toEqual(['hello']);
    } finally {
      await direct.close();
    }
    expect(failed.sort()).toEqual(['prompts/list', 'resources/list']);
  });
});
