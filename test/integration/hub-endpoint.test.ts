/**
 * The hub through its real HTTP endpoint with the SDK Client, fronting real servers from npm
 * (server-everything, server-filesystem over stdio) and our HTTP fixture server, all together.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ListRootsRequestSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { EVERYTHING, FILESYSTEM, NODE, fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';
import { spawnUntil, type Started } from '../support/processes.js';

let hub: TestHub;
let httpFixture: Started;
let fsRoot: string;
let client: Client;

beforeAll(async () => {
  fsRoot = await mkdtemp(join(tmpdir(), 'spillway-fs-'));
  await writeFile(join(fsRoot, 'hello.txt'), 'hello from the filesystem server\n');
  httpFixture = await spawnUntil(NODE, [fixture('fixture-server.mjs'), '--http', '--port', '0', '--name', 'http-fixture'], /listening on (\S+)/);
  hub = await startTestHub({
    mcpServers: {
      everything: nodeServer(EVERYTHING, ['stdio']),
      fs: nodeServer(FILESYSTEM, [fsRoot]),
      web: { url: httpFixture.match[1], headers: { 'x-fixture': 'configured' } },
    },
  });
  await Promise.all(['everything', 'fs', 'web'].map((id) => hub.waitForStatus(id, 'ready')));
  client = await hub.connect({ capabilities: { sampling: {}, roots: { listChanged: true } } });
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => ({
    role: 'assistant',
    model: 'test-model',
    content: { type: 'text', text: `echo of ${JSON.stringify(req.params.messages[0].content)}` },
  }));
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///tmp/test-root', name: 'test root' }] }));
});

afterAll(async () => {
  await hub?.stop();
  await httpFixture?.stop();
  await rm(fsRoot, { recursive: true, force: true });
});

describe('one endpoint in front of three upstreams', () => {
  it('lists the namespaced tools of all three', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain('everything__echo');
    expect(names).toContain('fs__read_text_file');
    expect(names).toContain('web__add');
    for (const name of names) {
      expect(name).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(name.length).toBeLessThanOrEqual(48);
    }
  });

  it('calls a tool on each', async () => {
    const echo = await client.callTool({ name: 'everything__echo', arguments: { message: 'hi there' } });
    expect(JSON.stringify(echo.content)).toContain('hi there');
    const file = await client.callTool({ name: 'fs__read_text_file', arguments: { path: join(fsRoot, 'hello.txt') } });
    expect(JSON.stringify(file.content)).toContain('hello from the filesystem server');
    const sum = await client.callTool({ name: 'web__add', arguments: { a: 2, b: 40 } });
    expect(sum.structuredContent).toEqual({ sum: 42 });
  });

  it('passes structuredContent and annotations through untouched', async () => {
    const raw = await client.request(
      { method: 'tools/call', params: { name: 'everything__get-structured-content', arguments: { location: 'New York' } } },
      CallToolResultSchema,
    );
    expect(raw.structuredContent).toBeTruthy();
    expect(raw.isError).toBeFalsy();
  });

  it('sends configured headers upstream, never the client credentials', async () => {
    const r = await client.callTool({ name: 'web__whoami', arguments: {} });
    const seen = JSON.parse((r.content as { text: string }[])[0].text);
    expect(seen['x-fixture']).toBe('configured');
    expect(seen.authorization).toBeNull();
  });

  it('relays every progress notification, with the client token', async () => {
    const progress: number[] = [];
    const result = await client.callTool({ name: 'web__slow', arguments: { steps: 25 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    expect(JSON.stringify(result.content)).toContain('done 25');
    expect(progress).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
  });

  it('relays progress from server-everything trigger-long-running-operation', async () => {
    const progress: number[] = [];
    await client.callTool({ name: 'everything__trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    expect(progress.length).toBe(3);
  });

  it('relays sampling requests to the calling client and its answer back', async () => {
    const r = await client.callTool({ name: 'web__sample', arguments: { prompt: 'what is 2+2' } });
    expect(JSON.stringify(r.content)).toContain('what is 2+2');
    const e = await client.callTool({ name: 'everything__trigger-sampling-request', arguments: { prompt: 'hello sampler', maxTokens: 10 } });
    expect(JSON.stringify(e.content)).toContain('hello sampler');
  });

  it('relays roots/list to the client', async () => {
    const r = await client.callTool({ name: 'web__roots', arguments: {} });
    expect(JSON.stringify(r.content)).toContain('file:///tmp/test-root');
  });

  it('reads resources and relays subscriptions', async () => {
    const { resources } = await client.listResources();
    expect(resources.length).toBeGreaterThan(0);
    const first = resources[0];
    const read = await client.readResource({ uri: first.uri });
    expect(read.contents[0].uri).toBe(first.uri);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.length).toBeGreaterThan(0);
    const updated = new Promise<string>((resolve) => client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params.uri)));
    await client.subscribeResource({ uri: first.uri });
    await client.callTool({ name: 'everything__toggle-subscriber-updates', arguments: {} });
    expect(await updated).toBe(first.uri);
    await client.unsubscribeResource({ uri: first.uri });
  });

  it('gets prompts by their namespaced name', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toContain('everything__simple-prompt');
    const p = await client.getPrompt({ name: 'everything__simple-prompt' });
    expect(p.messages.length).toBeGreaterThan(0);
  });

  it('propagates tools/list_changed when an upstream changes its tools', async () => {
    const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    await client.callTool({ name: 'web__add_tool', arguments: {} });
    await changed;
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('web__dynamic_1');
  });

  it('answers an unknown tool with a protocol error, not a dead proxy', async () => {
    await expect(client.callTool({ name: 'nope__nothing', arguments: {} })).rejects.toThrow(/Unknown tool: nope__nothing/);
    const ok = await client.callTool({ name: 'everything__echo', arguments: { message: 'still alive' } });
    expect(JSON.stringify(ok.content)).toContain('still alive');
  });

  it('records each session with its clientInfo', async () => {
    const sessions = hub.status.sessionInfos();
    expect(sessions.some((s) => s.client === 'test-client' && s.clientVersion === '1.0.0')).toBe(true);
  });

  it('keeps a readable call history in the event log', async () => {
    const events = await hub.hub.events.query({ types: ['call.finished'], server: 'everything' });
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e) => e.type === 'call.finished' && e.client === 'test-client')).toBe(true);
  });
});
