import { afterEach, describe, expect, it } from 'vitest';
import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { OrderedDelivery } from '../../electron/core/wire/ordered-delivery.js';
import { LineTransport } from '../../electron/core/wire/line-transport.js';
import { StdioUpstreamTransport } from '../../electron/core/upstream/stdio-transport.js';
import { within } from '../support/bounded-wait.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const note = (n: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `m${n}` } });
const lines = (...ns: number[]): string => ns.map((n) => `${JSON.stringify(note(n))}\n`).join('');
const dataOf = (message: JSONRPCMessage): unknown => ('params' in message ? message.params?.data : undefined);

/** Hears every message and error of a transport; the handler throws for `m2`. `until(n)` waits for n messages. */
function listen(transport: { onmessage?: (message: JSONRPCMessage) => void; onerror?: (error: Error) => void }) {
  const seen: unknown[] = [];
  const errors: string[] = [];
  const waiters: Array<() => void> = [];
  transport.onmessage = (message: JSONRPCMessage) => {
    seen.push(dataOf(message));
    waiters.splice(0).forEach((wake) => wake());
    if (dataOf(message) === 'm2') throw new Error('handler broke on m2');
  };
  transport.onerror = (error) => void errors.push(error.message);
  const until = async (count: number, what: string): Promise<void> => {
    while (seen.length < count) await within(new Promise<void>((resolve) => waiters.push(resolve)), 5000, what);
  };
  return { seen, errors, until };
}

describe('a delivery whose handler throws', () => {
  it('is reported, not thrown, when nothing waits, and the deliveries after it still run', () => {
    const errors: string[] = [];
    const seen: string[] = [];
    const order = new OrderedDelivery((error) => errors.push(error.message));
    expect(() =>
      order.run(() => {
        throw new Error('sync boom');
      }),
    ).not.toThrow();
    order.run(() => void seen.push('next'));
    expect(errors).toEqual(['sync boom']);
    expect(seen).toEqual(['next']);
  });

  it('over the hub socket (LineTransport): the reader goes on in order and onerror hears of it', async () => {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    const accepted = once(server, 'connection') as Promise<[Socket]>;
    const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
    cleanups.push(() => client.destroy());
    const [socket] = await accepted;
    const transport = new LineTransport(socket, socket, { endOutputOnClose: true });
    cleanups.push(() => transport.close());
    const heard = listen(transport);
    await transport.start();
    client.write(lines(1, 2, 3)); // one chunk: m3 comes after the throw in the same read
    await heard.until(3, 'm3, after the handler threw on m2');
    client.write(lines(4));
    await heard.until(4, 'm4, in a later read');
    expect(heard.seen).toEqual(['m1', 'm2', 'm3', 'm4']);
    expect(heard.errors).toEqual(['handler broke on m2']);
  });

  it("from an upstream server's stdout (StdioUpstreamTransport): the reader goes on in order and onerror hears of it", async () => {
    const script = `process.stdout.write(${JSON.stringify(lines(1, 2, 3))}); process.stdin.once('data', () => process.stdout.write(${JSON.stringify(lines(4))})); process.stdin.resume();`;
    const upstream = new StdioUpstreamTransport({
      command: process.execPath,
      args: ['-e', script],
      baseEnv: process.env,
      platform: process.platform,
    });
    cleanups.push(() => upstream.close());
    const heard = listen(upstream);
    await upstream.start();
    await heard.until(3, 'm3, after the handler threw on m2');
    await upstream.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await heard.until(4, 'm4, in a later read');
    expect(heard.seen).toEqual(['m1', 'm2', 'm3', 'm4']);
    expect(heard.errors).toEqual(['handler broke on m2']);
  });
});
