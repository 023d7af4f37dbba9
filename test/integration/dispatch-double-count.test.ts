/**
 * A call dispatch passes on is counted once, by the call path: one the client cancelled is recorded as
 * cancelled there (and dispatch records nothing), one whose upstream answered with a JSON-RPC error is
 * recorded as failed there, and dispatch's error result for the model is not counted again as its own.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, CallToolResultSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import type { HubEvent } from '../../shared/events.js';
import type { Hub } from '../../electron/core/hub.js';
import { startMemoryHub, type MemoryHub } from '../support/memory-hub.js';

let dir: string;
let memory: MemoryHub;
let hub: Hub;
let client: Client;
/** files/slow's calls: told when one arrives, answered when the test opens the gate. */
let arrived: () => void = () => {};
let gate: Promise<void> = Promise.resolve();

function files() {
  const server = new McpServer({ name: 'files', version: '1.0.0' });
  server.registerTool('slow', { inputSchema: { path: z.string() } }, async () => {
    arrived();
    await gate;
    return { content: [{ type: 'text', text: 'late' }] };
  });
  return server;
}

/** Resolves with the first hub event that `match` takes, from now on. */
function nextEvent(match: (e: HubEvent) => boolean): Promise<HubEvent> {
  return new Promise((resolve) => {
    const off = hub.events.subscribe((e) => {
      if (!match(e)) return;
      off();
      resolve(e);
    });
  });
}

/** Resolves once `holds` is true, checked now and at each record the ledger adds. */
function untilLedger(holds: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (holds()) return resolve();
    const off = hub.ledger.subscribe(() => {
      if (!holds()) return;
      off();
      resolve();
    });
  });
}

/**
 * Asks dispatch for its list and waits until the ledger holds that answer: records land in the order the
 * calls finished, so every record of an earlier call is in by then.
 */
async function ledgerSettled(): Promise<void> {
  const counted = nextEvent((e) => e.type === 'call.counted' && e.dispatchAnswer === true);
  await client.request({ method: 'tools/call', params: { name: 'spillway__dispatch', arguments: { action: 'list' } } }, CallToolResultSchema);
  await counted;
}

/** A server whose tool answers with a JSON-RPC error (not an isError result). */
function raw() {
  const server = new McpServer({ name: 'raw', version: '1.0.0' });
  server.registerTool('boom', { inputSchema: {} }, async () => ({ content: [] }));
  server.server.setRequestHandler(CallToolRequestSchema, async () => {
    throw new McpError(ErrorCode.InvalidParams, 'bad path given');
  });
  return server;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-dispatch-count-'));
  memory = await startMemoryHub({ dir, servers: { files, raw }, config: { settings: { policy: { dispatchOnly: true } } } });
  hub = memory.hub;
  client = await memory.connect('count');
});
afterAll(async () => {
  await memory?.stop();
  await rm(dir, { recursive: true, force: true });
});

const callsOf = (server: string, tool: string) => hub.ledger.report().byTool.find((t) => t.server === server && t.tool === tool)?.totals.calls ?? 0;
const dispatchCalls = () => callsOf('spillway', 'dispatch');

it('a cancelled dispatched call is not also counted as a dispatch answer', async () => {
  const before = dispatchCalls();
  let open!: () => void;
  gate = new Promise((resolve) => (open = resolve));
  const reached = new Promise<void>((resolve) => (arrived = resolve));
  const cancelled = nextEvent((e) => e.type === 'call.finished' && e.tool === 'slow' && e.action === 'cancelled');
  const abort = new AbortController();
  const pending = client.request(
    { method: 'tools/call', params: { name: 'spillway__dispatch', arguments: { action: 'call', name: 'files__slow', arguments: { path: 'a' } } } },
    CallToolResultSchema,
    { signal: abort.signal },
  );
  await reached;
  abort.abort('enough');
  await pending.catch(() => undefined);
  await cancelled;
  open();
  await ledgerSettled();
  // The list asked by ledgerSettled is the one dispatch answer more.
  expect(dispatchCalls()).toBe(before + 1);
});

it('a dispatched call whose upstream answered with a JSON-RPC error is one call in the ledger, not two', async () => {
  const before = { dispatch: dispatchCalls(), boom: callsOf('raw', 'boom') };
  const boomRecorded = untilLedger(() => callsOf('raw', 'boom') === before.boom + 1);
  const res = await client.request(
    { method: 'tools/call', params: { name: 'spillway__dispatch', arguments: { action: 'call', name: 'raw__boom', arguments: {} } } },
    CallToolResultSchema,
  );
  expect(res.isError).toBe(true);
  expect(JSON.stringify(res.content)).toContain('bad path given');
  await boomRecorded;
  await ledgerSettled();
  expect(dispatchCalls()).toBe(before.dispatch + 1);
  expect(callsOf('raw', 'boom')).toBe(before.boom + 1);
});

it("dispatch's own answers are still counted", async () => {
  const before = dispatchCalls();
  await ledgerSettled();
  expect(dispatchCalls()).toBe(before + 1);
});
