/**
 * A handler that throws while the hub reads a client's message over the bridge socket (or stdio) is reported
 * to the transport's onerror (ordered-delivery.ts) instead of escaping the socket reader as an uncaught
 * exception. That report must not vanish: the session says it in the hub's log (its onWarning), naming the
 * client, while the SDK's own complaints stay unlogged as before. Real session, FastToolCalls and
 * LineTransport over a real socket; the throw is put in the handler the SDK installed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { DownstreamSession, type SessionRouter } from '../../electron/core/downstream/session.js';
import { FastToolCalls } from '../../electron/core/downstream/fast-tool-calls.js';
import { LineTransport } from '../../electron/core/wire/line-transport.js';
import { within } from '../support/bounded-wait.js';

const router: SessionRouter = {
  listTools: () => [],
  callTool: async () => ({ content: [] }),
  listResources: () => [],
  listResourceTemplates: () => [],
  readResource: async () => ({ contents: [] }),
  subscribe: async () => undefined,
  unsubscribe: async () => undefined,
  listPrompts: () => [],
  getPrompt: async () => ({ messages: [] }),
  complete: async () => ({ completion: { values: [] } }),
  setLevel: async () => undefined,
  rootsChanged: () => undefined,
  sessionReady: () => undefined,
  sessionClosed: () => undefined,
};

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a handler that throws on a bridge session', () => {
  it('is said in the log with the client, and the session goes on', async () => {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    const accepted = once(server, 'connection') as Promise<[Socket]>;
    const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
    cleanups.push(() => client.destroy());
    const [socket] = await accepted;

    const session = new DownstreamSession('s1', 'bridge', router, '1.0.0');
    const warnings: string[] = [];
    let warned: () => void = () => undefined;
    session.onWarning = (message) => {
      warnings.push(message);
      warned();
    };
    const transport = new LineTransport(socket, socket, { endOutputOnClose: true });
    await session.connect(new FastToolCalls(transport, session));
    cleanups.push(() => session.close());
    const handler = transport.onmessage!;
    transport.onmessage = (message: JSONRPCMessage) => {
      if ('method' in message && message.method === 'notifications/roots/list_changed') throw new Error('roots handler broke');
      handler(message);
    };

    const answers: JSONRPCMessage[] = [];
    let answered: () => void = () => undefined;
    let rest = '';
    client.on('data', (chunk: Buffer) => {
      rest += chunk.toString('utf8');
      const lines = rest.split('\n');
      rest = lines.pop()!;
      for (const line of lines) answers.push(JSON.parse(line) as JSONRPCMessage);
      answered();
    });
    const line = (message: object) => `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`;
    const warning = within(new Promise<void>((resolve) => (warned = resolve)), 5000, 'the warning');
    const answer = within(new Promise<void>((resolve) => (answered = resolve)), 5000, 'the answer to initialize');
    client.write(
      line({ method: 'notifications/roots/list_changed' }) +
        line({
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
        }),
    );
    await warning;
    await answer;
    expect(warnings).toEqual([expect.stringMatching(/^A client \(bridge session\): .*roots handler broke/)]);
    expect(answers).toEqual([expect.objectContaining({ id: 1, result: expect.objectContaining({ serverInfo: expect.anything() }) })]);
  });
});
