/**
 * UpstreamClient's direct tools/call path against the SDK Client it stands in for: the same results,
 * errors, validation, timeouts, cancellation and connection-closed behaviour.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { once } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolResultSchema, ErrorCode, type JSONRPCMessage, type MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { DirectToolCalls } from '../../electron/core/upstream/direct-tool-calls.js';
import { UpstreamClient } from '../../electron/core/upstream/upstream-client.js';

interface Pair {
  client: Client;
  /** Messages the server received, in order. */
  received: JSONRPCMessage[];
  /** The signal of the server's first `hang` call, once the server runs it. */
  hung: Promise<AbortSignal>;
  closeServer(): Promise<void>;
}

const open: Pair[] = [];

/** The server's side of the pair, recording what the server receives (a wrapper, as the hub's own). */
class Recording implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  readonly received: JSONRPCMessage[] = [];
  constructor(private readonly inner: Transport) {}
  async start(): Promise<void> {
    this.inner.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
      this.received.push(message);
      this.onmessage?.(message, extra);
    };
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (error) => this.onerror?.(error);
    await this.inner.start();
  }
  send(message: JSONRPCMessage): Promise<void> {
    return this.inner.send(message);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

async function connect(direct: boolean): Promise<Pair> {
  const server = new McpServer({ name: 'fx', version: '1' });
  let hang!: (signal: AbortSignal) => void;
  const hung = new Promise<AbortSignal>((resolve) => (hang = resolve));
  server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.registerTool('structured', {}, async () => ({ content: [{ type: 'text', text: '{"n":1}' }], structuredContent: { n: 1 } }));
  server.registerTool('hang', {}, (extra) => {
    hang(extra.signal);
    return new Promise(() => {});
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const recording = new Recording(serverSide);
  await server.connect(recording);
  const client = direct ? new UpstreamClient({ name: 't', version: '1' }) : new Client({ name: 't', version: '1' });
  // As the hub connects a stdio upstream: through the direct path's transport wrapper.
  await client.connect(direct ? new DirectToolCalls(clientSide) : clientSide);
  const pair = { client, received: recording.received, hung, closeServer: () => server.close() };
  open.push(pair);
  return pair;
}

afterEach(async () => {
  for (const p of open.splice(0)) {
    await p.client.close().catch(() => undefined);
    await p.closeServer().catch(() => undefined);
  }
});

const call = (c: Client, name: string, args: Record<string, unknown> = {}, options?: Parameters<Client['request']>[2]) =>
  c.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema, options);

interface Outcome {
  value?: unknown;
  error?: { name: string; code?: number; message: string; data?: unknown };
}

const outcome = (p: Promise<unknown>): Promise<Outcome> =>
  p.then(
    (value) => ({ value }),
    (error: { name: string; code?: number; message: string; data?: unknown }) => ({
      error: { name: error.name, code: error.code, message: error.message, data: error.data },
    }),
  );

describe('UpstreamClient direct tools/call', () => {
  it('gives the same results and errors as the SDK Client', async () => {
    const sdk = await connect(false);
    const direct = await connect(true);
    for (const [name, args] of [
      ['echo', { text: 'über' }],
      ['structured', {}],
      ['echo', { text: 5 }],
      ['missing', {}],
    ] as const) {
      expect(await outcome(call(direct.client, name, args))).toEqual(await outcome(call(sdk.client, name, args)));
    }
    // A protocol error (no tool name): the server answers with a JSON-RPC error.
    const bad = (c: Client) => outcome(c.request({ method: 'tools/call', params: { arguments: {} } } as never, CallToolResultSchema));
    const viaDirect = await bad(direct.client);
    expect(viaDirect.error?.code).toBeLessThan(-32000);
    expect(viaDirect).toEqual(await bad(sdk.client));
  });

  it('sends tools/call with its own ids, far from the SDK counter, and other requests through the SDK', async () => {
    const direct = await connect(true);
    await call(direct.client, 'echo', { text: 'a' });
    await direct.client.listTools();
    const ids = direct.received.filter((m) => 'id' in m && 'method' in m).map((m) => [(m as { method: string }).method, (m as { id: number }).id]);
    expect(ids).toContainEqual(['tools/call', 1_000_000_000]);
    expect(ids.find(([method]) => method === 'tools/list')![1]).toBeLessThan(10);
  });

  it('validates a result that is not plain text with the schema, as the SDK does', async () => {
    const direct = await connect(true);
    const strict = CallToolResultSchema.extend({ structuredContent: z.object({ n: z.string() }) });
    const viaDirect = await outcome(direct.client.request({ method: 'tools/call', params: { name: 'structured', arguments: {} } }, strict));
    const sdk = await connect(false);
    const viaSdk = await outcome(sdk.client.request({ method: 'tools/call', params: { name: 'structured', arguments: {} } }, strict));
    expect(viaDirect).toHaveProperty('error');
    expect(viaDirect).toEqual(viaSdk);
  });

  it('cancels upstream on abort and rejects like the SDK', async () => {
    const direct = await connect(true);
    const abort = new AbortController();
    const pending = outcome(call(direct.client, 'hang', {}, { signal: abort.signal }));
    const signal = await direct.hung;
    abort.abort(new Error('stop'));
    expect(await pending).toEqual({
      error: { name: 'McpError', code: ErrorCode.RequestTimeout, message: 'MCP error -32001: Error: stop', data: undefined },
    });
    // The server hears the cancel after the client has given up.
    if (!signal.aborted) await once(signal, 'abort');
    const cancelled = direct.received.find((m) => 'method' in m && m.method === 'notifications/cancelled');
    expect(cancelled).toMatchObject({ params: { requestId: 1_000_000_000 } });
  });

  it('times out with the SDK error when a short timeout is given', async () => {
    const direct = await connect(true);
    const result = await outcome(call(direct.client, 'hang', {}, { timeout: 50 }));
    expect(result).toEqual({
      error: { name: 'McpError', code: ErrorCode.RequestTimeout, message: 'MCP error -32001: Request timed out', data: { timeout: 50 } },
    });
  });

  it('fails pending calls with ConnectionClosed when the connection ends', async () => {
    const direct = await connect(true);
    const pending = outcome(call(direct.client, 'hang'));
    await direct.hung;
    await direct.closeServer();
    expect(await pending).toEqual({
      error: { name: 'McpError', code: ErrorCode.ConnectionClosed, message: 'MCP error -32000: Connection closed', data: undefined },
    });
    expect((await outcome(call(direct.client, 'echo', { text: 'x' }))).error?.message).toMatch(/Not connected/);
  });

  it('leaves calls with a progress callback to the SDK', async () => {
    const direct = await connect(true);
    await call(direct.client, 'echo', { text: 'p' }, { onprogress: () => undefined });
    const sent = direct.received.find((m) => 'method' in m && m.method === 'tools/call') as { id: number };
    expect(sent.id).toBeLessThan(10);
  });
});
