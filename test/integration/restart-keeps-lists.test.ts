/**
 * Restart (upstreams.restart) keeps the server's last lists listed until the new process answers, as a
 * crash does: a client's tools/list still shows its tools meanwhile, no list_changed is sent when the
 * new process lists the same, and a call made meanwhile waits for it. The fixture server here answers
 * nothing until the test opens its gate (a slow start, as an npx server's or a remote one's); server-everything
 * has tools, resources and prompts.
 *
 * Clients connect in-process (the SDK's linked pair, as a stdio client's session): the hub's messages to
 * a client arrive in the order it sent them. So once the catalog shows the new process's lists (the
 * rebuild that would send a list_changed has run) and a tools/list has been answered after that, any
 * list_changed from the rebuild has arrived: none has to be waited for on time.
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

/** Whether the catalog lists `tool` from its server's running process, not from the lists kept over the restart. */
const fromNewProcess = (tool: string) => hub.hub.catalog.tool(tool)?.kept === undefined;

/** Restarts "slow" (ready first) with its gate shut (the new process does not answer yet); resolves once it is starting. */
async function restartShut(): Promise<void> {
  await openGate();
  await rm(gate);
  const connecting = hub.waitFor((e) => e.type === 'upstream.status' && e.server === 'slow' && e.status === 'connecting', 'connecting');
  void hub.api('upstreams.restart', { id: 'slow' });
  await connecting;
}

/** Lets the new process answer; resolves once it is ready (the catalog is rebuilt before the status is told). */
async function openGate(): Promise<void> {
  await writeFile(gate, '');
  await hub.waitForStatus('slow', 'ready');
}

it("keeps a restarting server's tools listed, and sends no list_changed when it lists the same", async () => {
  const client = await hub.connectInProcess('other-client');
  const changes = countChanges(client);
  expect((await client.listTools()).tools.map((t) => t.name)).toContain('slow__ping');
  await restartShut();
  // The gate is shut: the new process stays connecting until openGate.
  expect(hub.hub.pool.get('slow')?.status).toBe('connecting');
  expect(fromNewProcess('slow__ping')).toBe(false);
  expect((await client.listTools()).tools.map((t) => t.name)).toContain('slow__ping');
  await openGate();
  expect(fromNewProcess('slow__ping')).toBe(true);
  // Answered after the rebuild: a list_changed it sent would have come first.
  expect((await client.listTools()).tools.map((t) => t.name)).toContain('slow__ping');
  expect(changes()).toBe(0);
}, 60_000);

it('lets a call made during the restart wait for the new process', async () => {
  const client = await hub.connectInProcess('caller');
  await restartShut();
  // The hub tells the client (a progress notification) that its call waits for the server to start; the
  // call is answered only after that (if at all before the gate opens, the race shows its answer).
  let waiting!: (message: string | undefined) => void;
  const told = new Promise<string | undefined>((resolve) => (waiting = resolve));
  const call = client.callTool({ name: 'slow__ping', arguments: {} }, undefined, { onprogress: (p) => waiting(p.message) });
  expect(await Promise.race([told, call])).toBe('Waiting for slow to start…');
  await openGate();
  const result = (await call) as CallToolResult;
  expect(result.isError).toBeFalsy();
  expect(result.content).toEqual([{ type: 'text', text: 'pong' }]);
}, 60_000);

it('sends no list_changed for tools, resources or prompts when server-everything restarts', async () => {
  const client = await hub.connectInProcess('lists-client');
  const changes = countChanges(client);
  const before = (await client.listTools()).tools.map((t) => t.name);
  expect(before.some((name) => name.startsWith('everything__'))).toBe(true);
  const [resources, prompts] = [(await client.listResources()).resources, (await client.listPrompts()).prompts];
  const back = hub.waitFor((e) => e.type === 'upstream.status' && e.server === 'everything' && e.status === 'ready', 'everything ready');
  expect((await hub.api('upstreams.restart', { id: 'everything' })).ok).toBe(true);
  await back;
  expect(fromNewProcess('everything__echo')).toBe(true);
  // Answered after the rebuild: a list_changed it sent would have come first.
  expect((await client.listTools()).tools.map((t) => t.name)).toEqual(before);
  expect((await client.listResources()).resources).toEqual(resources);
  expect((await client.listPrompts()).prompts).toEqual(prompts);
  expect(changes()).toBe(0);
}, 60_000);
