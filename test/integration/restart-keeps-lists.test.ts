/**
 * Restart (upstreams.restart) keeps the server's last lists listed until the new process answers, as a
 * crash does: a client's tools/list still shows its tools meanwhile, no list_changed is sent when the
 * new process lists the same, and a call made meanwhile waits for it. The fixture server here answers
 * nothing until the test opens its gate (a slow start, as an npx server's or a remote one's); server-everything
 * has tools, resources and prompts.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { EVERYTHING, fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
let gate: string;
beforeAll(async () => {
  hub = await startTestHub(async (dir: string) => {
    gate = join(dir, 'gate');
    await writeFile(gate, '');
    return { mcpServers: { slow: nodeServer(fixture('gated-server.mjs'), ['--gate', gate]), everything: nodeServer(EVERYTHING, ['stdio']) } };
  });
  await hub.waitForStatus('slow', 'ready');
  await hub.waitForStatus('everything', 'ready');
}, 60_000);
afterAll(async () => {
  await hub?.stop();
});

/** Counts every list_changed the client is sent. */
function countChanges(client: Client): () => number {
  let changes = 0;
  for (const schema of [ToolListChangedNotificationSchema, ResourceListChangedNotificationSchema, PromptListChangedNotificationSchema]) {
    client.setNotificationHandler(schema, () => void changes++);
  }
  return () => changes;
}

/** Restarts "slow" (ready first) with its gate shut (the new process does not answer yet); resolves once it is starting. */
async function restartShut(): Promise<void> {
  await openGate();
  await rm(gate);
  const connecting = hub.waitFor((e) => e.type === 'upstream.status' && e.server === 'slow' && e.status === 'connecting', 'connecting');
  void hub.api('upstreams.restart', { id: 'slow' });
  await connecting;
}

async function openGate(): Promise<void> {
  await writeFile(gate, '');
  await hub.waitForStatus('slow', 'ready');
}

it("keeps a restarting server's tools listed, and sends no list_changed when it lists the same", async () => {
  const client = await hub.connect({}, 'other-client');
  const changes = countChanges(client);
  expect((await client.listTools()).tools.map((t) => t.name)).toContain('slow__ping');
  await restartShut();
  // The gate is shut: the new process stays connecting until openGate.
  expect(hub.hub.pool.get('slow')?.status).toBe('connecting');
  expect((await client.listTools()).tools.map((t) => t.name)).toContain('slow__ping');
  await openGate();
  await new Promise((r) => setTimeout(r, 500));
  expect((await client.listTools()).tools.map((t) => t.name)).toContain('slow__ping');
  expect(changes()).toBe(0);
}, 60_000);

it('lets a call made during the restart wait for the new process', async () => {
  const client = await hub.connect({}, 'caller');
  await restartShut();
  const call = client.callTool({ name: 'slow__ping', arguments: {} });
  await new Promise((r) => setTimeout(r, 500));
  await openGate();
  const result = (await call) as CallToolResult;
  expect(result.isError).toBeFalsy();
  expect(result.content).toEqual([{ type: 'text', text: 'pong' }]);
}, 60_000);

it('sends no list_changed for tools, resources or prompts when server-everything restarts', async () => {
  const client = await hub.connect({}, 'lists-client');
  const changes = countChanges(client);
  const before = (await client.listTools()).tools.map((t) => t.name);
  expect(before.some((name) => name.startsWith('everything__'))).toBe(true);
  const back = hub.waitFor((e) => e.type === 'upstream.status' && e.server === 'everything' && e.status === 'ready', 'everything ready');
  expect((await hub.api('upstreams.restart', { id: 'everything' })).ok).toBe(true);
  await back;
  await new Promise((r) => setTimeout(r, 500));
  expect((await client.listTools()).tools.map((t) => t.name)).toEqual(before);
  expect(changes()).toBe(0);
}, 60_000);
