/**
 * What the hub answers itself reaches the ledger, and Savings hears of it (audit s17):
 * - spillway__dispatch's list, search and describe answers reach the model while the tools/list saving
 *   credits dispatch for leaving those schemas out: each is counted as delivered against nothing
 *   produced (server "spillway", tool "dispatch"), so the net saving is honest. A call it passes on is
 *   counted once, as that tool's call.
 * - a tools/list record lands after the list went out: a `call.counted` (`listed`) tells of it, so the
 *   Savings view does not wait for the next call to show it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Hub } from '../../electron/core/hub.js';
import type { HubEvent } from '../../shared/events.js';
import type { LedgerEntry } from '../../shared/ledger.js';
import { startMemoryHub, type MemoryHub } from '../support/memory-hub.js';

type Counted = Extract<HubEvent, { type: 'call.counted' }>;
type CallLine = Extract<LedgerEntry, { kind: 'call' }>;

let dir: string;
let memory: MemoryHub;
let hub: Hub;
let client: Client;

function files() {
  const server = new McpServer({ name: 'files', version: '1.0.0' });
  server.registerTool(
    'read_file',
    { description: 'Reads a file and returns its text.', inputSchema: { path: z.string().describe('The path of the file to read.') } },
    async ({ path }) => ({ content: [{ type: 'text', text: `text of ${path}` }] }),
  );
  server.registerTool(
    'delete_file',
    {
      description: 'Deletes a file for good.',
      inputSchema: { path: z.string(), force: z.boolean().optional() },
      annotations: { destructiveHint: true },
    },
    async () => ({ content: [{ type: 'text', text: 'deleted' }] }),
  );
  return server;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-own-answers-'));
  memory = await startMemoryHub({ dir, servers: { files }, config: { settings: { policy: { dispatchOnly: true } } } });
  hub = memory.hub;
  client = await memory.connect('own-answers');
});

afterAll(async () => {
  await memory?.stop();
  await rm(dir, { recursive: true, force: true });
});

const dispatch = (args: Record<string, unknown>) =>
  client.request({ method: 'tools/call', params: { name: 'spillway__dispatch', arguments: args } }, CallToolResultSchema) as Promise<CallToolResult>;

const textOf = (result: CallToolResult) => result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

const dispatchCalls = () => hub.ledger.report().byTool.find((t) => t.server === 'spillway' && t.tool === 'dispatch')?.totals.calls ?? 0;

/** The next `call.counted` that matches, with what the ledger held when it came (it must follow the record). */
function nextCounted<T>(match: (e: Counted) => boolean, held: () => T): Promise<{ event: Counted; held: T }> {
  return new Promise((resolve) => {
    const off = hub.events.subscribe((e) => {
      if (e.type !== 'call.counted' || !match(e)) return;
      off();
      resolve({ event: e, held: held() });
    });
  });
}

/** The next call record of `server`/`tool` in the ledger. */
function nextLine(server: string, tool: string): Promise<CallLine> {
  return new Promise((resolve) => {
    const off = hub.ledger.subscribe(({ record }) => {
      if (record.kind !== 'call' || record.server !== server || record.tool !== tool) return;
      off();
      resolve(record);
    });
  });
}

describe("spillway__dispatch's own answers", () => {
  it.each([
    ['describe', { action: 'describe', name: 'files__read_file' }],
    ['search', { action: 'search', query: 'delete file' }],
    ['list', { action: 'list', schemas: true }],
  ])('%s: counted as delivered against nothing produced, told once the ledger holds it', async (_name, args) => {
    const before = dispatchCalls();
    const told = nextCounted((e) => e.dispatchAnswer === true, dispatchCalls);
    const line = nextLine('spillway', 'dispatch');
    const answer = await dispatch(args);
    expect(answer.isError).toBeUndefined();
    const { event, held } = await told;
    expect(held).toBe(before + 1);
    const tokens = await hub.spill.counter.count(textOf(answer));
    expect(tokens).toBeGreaterThan(10);
    expect(event).toMatchObject({
      level: 'info',
      server: 'spillway',
      tool: 'dispatch',
      exposedName: 'spillway__dispatch',
      tokensUpstream: 0,
      tokensDelivered: tokens,
      tokensEstimated: false,
      dispatchAnswer: true,
    });
    expect(event.readBack).toBeUndefined();
    expect(await line).toMatchObject({ client: 'own-answers', action: 'pass', tokensUpstream: 0, tokensDelivered: tokens });
  });

  it('why it cannot do what was asked is counted too (an error answer)', async () => {
    const line = nextLine('spillway', 'dispatch');
    const answer = await dispatch({ action: 'call', name: 'files__nothing_here' });
    expect(answer.isError).toBe(true);
    expect(await line).toMatchObject({ action: 'error', tokensUpstream: 0, tokensDelivered: await hub.spill.counter.count(textOf(answer)) });
  });

  it('a call it passes on is counted once, as the tool it called', async () => {
    const before = dispatchCalls();
    const called = nextLine('files', 'read_file');
    expect(textOf(await dispatch({ action: 'call', name: 'files__read_file', arguments: { path: 'a.txt' } }))).toBe('text of a.txt');
    expect(await called).toMatchObject({ action: 'pass', tokensDelivered: await hub.spill.counter.count('text of a.txt') });
    // A describe after it: had the call made a dispatch record, it would be in by the time this one is.
    const told = nextCounted((e) => e.dispatchAnswer === true, dispatchCalls);
    await dispatch({ action: 'describe', name: 'files__delete_file' });
    expect((await told).held).toBe(before + 1);
  });
});

describe('a tools/list record', () => {
  it('is told by a call.counted (`listed`) once the ledger holds it, with its schema tokens', async () => {
    const before = hub.ledger.report().allTime;
    const told = nextCounted(
      (e) => e.listed === true,
      () => hub.ledger.report().allTime,
    );
    const listed = await client.listTools();
    expect(listed.tools.map((t) => t.name)).toContain('spillway__dispatch');
    const { event, held } = await told;
    expect(held.lists).toBe(before.lists + 1);
    expect(held.calls).toBe(before.calls);
    expect(event).toMatchObject({
      level: 'debug',
      server: 'spillway',
      tool: 'tools/list',
      tokensUpstream: held.schemaTokensUpstream - before.schemaTokensUpstream,
      tokensDelivered: held.schemaTokensExposed - before.schemaTokensExposed,
      tokensEstimated: false,
      listed: true,
    });
    expect(event.tokensUpstream).toBeGreaterThan(0);
  });
});
