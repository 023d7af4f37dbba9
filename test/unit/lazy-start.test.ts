/**
 * Lazy start and idle stop's parts (issue 18): the start plan from a server's config, the config fields'
 * validation, and what the activity transport counts as keeping a server busy.
 */
import { describe, expect, it } from 'vitest';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ConfigError, parseConfig, ServerConfigSchema } from '../../shared/config.js';
import { ActivityTransport } from '../../electron/core/upstream/activity-transport.js';
import { startPlan } from '../../electron/core/upstream/start-plan.js';

const stdio = (extra: Record<string, unknown> = {}) => ServerConfigSchema.parse({ type: 'stdio', command: 'node', ...extra });
const http = (extra: Record<string, unknown> = {}) => ServerConfigSchema.parse({ type: 'http', url: 'http://127.0.0.1:1/mcp', ...extra });

describe('startPlan', () => {
  it('starts stdio servers on first use once their lists are kept, with a 10 minute idle stop', () => {
    expect(startPlan(stdio(), true)).toEqual({ lazy: true, idleStopMs: 600_000 });
    expect(startPlan(stdio(), false)).toEqual({ lazy: false, idleStopMs: 0 });
    expect(startPlan(http(), true)).toEqual({ lazy: false, idleStopMs: 0 });
  });

  it('follows the configured start mode and idle time', () => {
    expect(startPlan(stdio({ startMode: 'always' }), true)).toEqual({ lazy: false, idleStopMs: 0 });
    expect(startPlan(http({ startMode: 'on-first-use', idleStopMinutes: 2 }), true)).toEqual({ lazy: true, idleStopMs: 120_000 });
    expect(startPlan(stdio({ idleStopMinutes: 0 }), true)).toEqual({ lazy: true, idleStopMs: 0 });
    // Nothing kept to list: it starts now, and still stops when idle.
    expect(startPlan(stdio({ startMode: 'on-first-use' }), false)).toEqual({ lazy: false, idleStopMs: 600_000 });
  });

  it('refuses a bad start mode or idle time, naming the field', () => {
    for (const [server, field] of [
      [{ startMode: 'sometimes' }, 'servers.s.startMode'],
      [{ idleStopMinutes: -1 }, 'servers.s.idleStopMinutes'],
    ] as const) {
      const text = JSON.stringify({ version: 1, servers: { s: { type: 'stdio', command: 'node', ...server } } });
      expect(() => parseConfig(text)).toThrow(ConfigError);
      try {
        parseConfig(text);
      } catch (err) {
        expect((err as ConfigError).field).toBe(field);
      }
    }
  });
});

describe('ActivityTransport', () => {
  async function pair() {
    const [ours, theirs] = InMemoryTransport.createLinkedPair();
    let touches = 0;
    const activity = new ActivityTransport(ours, () => void touches++);
    const received: JSONRPCMessage[] = [];
    const answered = () => new Promise<void>((resolve) => (activity.onmessage = (m) => (received.push(m), resolve())));
    theirs.onmessage = () => {};
    await Promise.all([activity.start(), theirs.start()]);
    return { activity, theirs, answered, touches: () => touches };
  }

  it('is busy while a request of ours awaits its answer, or until it is cancelled', async () => {
    const { activity, theirs, answered, touches } = await pair();
    expect(activity.busy).toBe(false);
    await activity.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } });
    expect(activity.busy).toBe(true);
    const got = answered();
    await theirs.send({ jsonrpc: '2.0', id: 1, result: { content: [] } });
    await got;
    expect(activity.busy).toBe(false);
    await activity.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'x' } });
    await activity.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } });
    expect(activity.busy).toBe(false);
    expect(touches()).toBe(4);
  });

  it('is busy while a request of the server awaits a client, and while a resource is subscribed', async () => {
    const { activity, theirs, answered } = await pair();
    const got = answered();
    await theirs.send({ jsonrpc: '2.0', id: 7, method: 'sampling/createMessage', params: {} });
    await got;
    expect(activity.busy).toBe(true);
    await activity.send({ jsonrpc: '2.0', id: 7, result: {} });
    expect(activity.busy).toBe(false);

    await activity.send({ jsonrpc: '2.0', id: 3, method: 'resources/subscribe', params: { uri: 'a://x' } });
    const subscribed = answered();
    await theirs.send({ jsonrpc: '2.0', id: 3, result: {} });
    await subscribed;
    expect(activity.busy).toBe(true);
    await activity.send({ jsonrpc: '2.0', id: 4, method: 'resources/unsubscribe', params: { uri: 'a://x' } });
    const unsubscribed = answered();
    await theirs.send({ jsonrpc: '2.0', id: 4, result: {} });
    await unsubscribed;
    expect(activity.busy).toBe(false);
  });

  it('is not held by a subscribe the server refused or that was withdrawn', async () => {
    const { activity, theirs, answered } = await pair();
    await activity.send({ jsonrpc: '2.0', id: 5, method: 'resources/subscribe', params: { uri: 'a://gone' } });
    expect(activity.busy).toBe(true);
    const refused = answered();
    await theirs.send({ jsonrpc: '2.0', id: 5, error: { code: -32002, message: 'Resource not found' } });
    await refused;
    expect(activity.busy).toBe(false);

    await activity.send({ jsonrpc: '2.0', id: 6, method: 'resources/subscribe', params: { uri: 'a://slow' } });
    await activity.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 6 } });
    expect(activity.busy).toBe(false);
  });
});
