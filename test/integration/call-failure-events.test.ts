/**
 * Failures Activity must not hide (audit s12): a tool that answers with an error result says why in its
 * `call.finished` event (short, on one line, secrets masked as in every event), and a call to a tool no
 * server offers (a client's stale tool list) leaves a warning naming the tool and what to do. The real hub
 * in-process, its upstream an SDK McpServer over the in-memory pair.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { HubEvent } from '../../shared/events.js';
import { startMemoryHub, type MemoryHub } from '../support/memory-hub.js';

let dir: string;
let hub: MemoryHub;
let client: Client;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-call-failures-'));
  const server = () => {
    const s = new McpServer({ name: 'weather', version: '1.0.0' });
    s.registerTool('forecast', { inputSchema: { city: z.string() } }, async ({ city }) => ({
      content: [
        { type: 'text', text: `No forecast for ${city}:\n  the upstream service refused the key api_key=sk-live-0123456789abcdefghij.` },
        { type: 'text', text: `Details: ${'x'.repeat(5_000)}` },
      ],
      isError: true,
    }));
    s.registerTool('silent', {}, async () => ({ content: [], isError: true }));
    return s;
  };
  hub = await startMemoryHub({ dir, servers: { weather: server } });
  client = await hub.connect('test-client');
});

afterAll(async () => {
  await hub?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** The next event that matches (subscribe before the action that causes it). */
function nextEvent<T extends HubEvent>(match: (e: HubEvent) => e is T): Promise<T> {
  return new Promise((resolve) => {
    const off = hub.hub.events.subscribe((e) => {
      if (!match(e)) return;
      off();
      resolve(e);
    });
  });
}

type Finished = Extract<HubEvent, { type: 'call.finished' }>;
const finishedOf =
  (tool: string) =>
  (e: HubEvent): e is Finished =>
    e.type === 'call.finished' && e.tool === tool;

describe('failures in the log', () => {
  it("a tool's error result: its call.finished says why, short, on one line, the secret masked", async () => {
    const finished = nextEvent(finishedOf('forecast'));
    const result = await client.callTool({ name: 'weather__forecast', arguments: { city: 'Oslo' } });
    expect(result.isError).toBe(true);
    const event = await finished;
    expect(event).toMatchObject({ isError: true, level: 'warn' });
    expect(event.error).toMatch(/^No forecast for Oslo: the upstream service refused the key api_key=\*\*\*/);
    expect(event.error).not.toContain('sk-live-0123456789');
    expect(event.error!.length).toBeLessThanOrEqual(301);
    expect(event.error).toMatch(/…$/);
    // As the log keeps it, too.
    expect(hub.hub.events.recent().find((e) => e.seq === event.seq)).toMatchObject({ error: event.error });
  });

  it('an error result with no text gives no made-up reason', async () => {
    const finished = nextEvent(finishedOf('silent'));
    await client.callTool({ name: 'weather__silent', arguments: {} });
    expect((await finished).error).toBeUndefined();
  });

  it('a call to a tool no server offers leaves a warning naming the tool, the client and what to do', async () => {
    await expect(client.callTool({ name: 'weather__gone', arguments: {} })).rejects.toThrow(/Unknown tool: weather__gone/);
    // Emitted before the error went back, so it is in the log by now.
    const event = hub.hub.events.recent().find((e) => e.type === 'log' && e.message.includes('weather__gone'));
    expect(event?.type).toBe('log');
    if (event?.type !== 'log') return;
    expect(event.level).toBe('warn');
    expect(event.message).toBe(
      'test-client called the tool "weather__gone", which no server in Spillway offers now, so the call failed. ' +
        "The client's list of tools may be out of date: reload its tools or restart it, and check in Servers that the tool's server is on.",
    );
  });
});
