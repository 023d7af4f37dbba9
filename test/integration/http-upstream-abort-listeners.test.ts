/**
 * The SDK's Streamable HTTP transport hands one transport-wide abort signal to every POST, and fetch adds
 * a listener to a request's signal that goes only when the request is garbage-collected: past 1,500
 * calls, MaxListenersExceededWarning on every call. Each request now gets its own signal
 * (ownSignalPerRequest in transport-factory.ts), whose link to the shared one ends with the answer's body.
 */
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createTransportFactory, ownSignalPerRequest } from '../../electron/core/upstream/transport-factory.js';
import { NODE, fixture } from '../support/hub-harness.js';
import { spawnUntil, type Started } from '../support/processes.js';

const CALLS = 2_000;

let server: Started | undefined;
let client: Client | undefined;

afterEach(async () => {
  await client?.close();
  client = undefined;
  await server?.stop();
  server = undefined;
});

describe('HTTP upstream abort listeners', () => {
  it(`${CALLS} calls leave no abort listeners behind and raise no MaxListenersExceededWarning`, async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => {
      if (w.name === 'MaxListenersExceededWarning') warnings.push(w);
    };
    process.on('warning', onWarning);
    try {
      server = await spawnUntil(NODE, [fixture('fixture-server.mjs'), '--http', '--port', '0', '--name', 'web'], /listening on (\S+)/);
      const url = server.match[1] ?? '';
      const factory = createTransportFactory({ baseEnv: process.env, platform: process.platform, maxMessageBytes: () => 1e8 });
      const { transport } = await factory('web', { type: 'http', url, headers: {}, enabled: true, prefix: true }, () => {});
      client = new Client({ name: 'abort-listeners', version: '1' });
      await client.connect(transport);
      for (let i = 0; i < CALLS; i++) {
        const res = await client.callTool({ name: 'add', arguments: { a: i, b: 2 } });
        expect(res.isError).toBeFalsy();
      }
      // The one signal the SDK gives every POST (private to the transport).
      const shared: unknown = Reflect.get(transport, '_abortController');
      expect(shared).toBeInstanceOf(AbortController);
      if (shared instanceof AbortController) expect(getEventListeners(shared.signal, 'abort').length).toBeLessThan(5);
      // A warning is emitted on the next turn of the event loop.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  }, 120_000);

  it('an abort of the shared signal still stops a body being read, and then lets go of it', async () => {
    const shared = new AbortController();
    let pushed: ReadableStreamDefaultController<Uint8Array> | undefined;
    const seen: AbortSignal[] = [];
    const wrapped = ownSignalPerRequest((_input, init) => {
      if (init?.signal) seen.push(init.signal);
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          pushed = controller;
          init?.signal?.addEventListener('abort', () => controller.error(init.signal?.reason));
        },
      });
      return Promise.resolve(new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }));
    });
    const res = await wrapped('http://127.0.0.1:1/mcp', { method: 'POST', signal: shared.signal });
    expect(seen[0]).not.toBe(shared.signal);
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(1);
    const reader = res.body?.getReader();
    pushed?.enqueue(new TextEncoder().encode('data: 1\n\n'));
    expect((await reader?.read())?.done).toBe(false);
    shared.abort(new Error('transport closed'));
    await expect(reader?.read()).rejects.toThrow('transport closed');
    expect(seen[0]?.aborted).toBe(true);
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
  });

  it('a body read to its end, or cancelled, unlinks its request from the shared signal', async () => {
    const shared = new AbortController();
    const wrapped = ownSignalPerRequest(() => Promise.resolve(new Response('{"ok":true}', { status: 200 })));
    const read = await wrapped('http://127.0.0.1:1/mcp', { signal: shared.signal });
    const cancelled = await wrapped('http://127.0.0.1:1/mcp', { signal: shared.signal });
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(2);
    expect(await read.json()).toEqual({ ok: true });
    await cancelled.body?.cancel();
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
  });
});
