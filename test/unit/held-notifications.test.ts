/**
 * HeldNotifications in front of a transport that records what it was given: list changes and resource
 * updates wait while no GET stream is open and go out once, in order, when one opens; the rest passes.
 */
import { describe, expect, it } from 'vitest';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { HeldNotifications } from '../../electron/core/downstream/held-notifications.js';

class Recording implements Transport {
  readonly sent: { message: JSONRPCMessage; options?: TransportSendOptions }[] = [];
  onclose?: () => void;
  async start(): Promise<void> {}
  async close(): Promise<void> {
    this.onclose?.();
  }
  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    this.sent.push({ message, ...(options ? { options } : {}) });
  }
}

const note = (method: string, params?: Record<string, unknown>): JSONRPCMessage => ({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
const methods = (inner: Recording) => inner.sent.map((s) => ('method' in s.message ? s.message.method : 'answer'));

async function held(): Promise<{ inner: Recording; hold: HeldNotifications }> {
  const inner = new Recording();
  const hold = new HeldNotifications(inner);
  await hold.start();
  return { inner, hold };
}

describe('HeldNotifications', () => {
  it('holds list changes until a stream opens, each kind once', async () => {
    const { inner, hold } = await held();
    await hold.send(note('notifications/tools/list_changed'));
    await hold.send(note('notifications/prompts/list_changed'));
    await hold.send(note('notifications/tools/list_changed'));
    expect(inner.sent).toEqual([]);
    hold.streamOpened();
    expect(methods(inner)).toEqual(['notifications/tools/list_changed', 'notifications/prompts/list_changed']);
    await hold.send(note('notifications/tools/list_changed'));
    expect(methods(inner)).toHaveLength(3);
  });

  it('holds again after the stream closed, and sends on reopening', async () => {
    const { inner, hold } = await held();
    hold.streamOpened();
    hold.streamClosed();
    await hold.send(note('notifications/resources/updated', { uri: 'file:///a' }));
    await hold.send(note('notifications/resources/updated', { uri: 'file:///b' }));
    await hold.send(note('notifications/resources/updated', { uri: 'file:///a' }));
    expect(hold.heldCount).toBe(2);
    hold.streamOpened();
    expect(inner.sent.map((s) => (s.message as { params?: { uri?: string } }).params?.uri)).toEqual(['file:///a', 'file:///b']);
  });

  it('passes messages related to a request, answers, requests and log messages at once', async () => {
    const { inner, hold } = await held();
    await hold.send(note('notifications/tools/list_changed'), { relatedRequestId: 4 });
    await hold.send({ jsonrpc: '2.0', id: 5, result: {} });
    await hold.send({ jsonrpc: '2.0', id: 6, method: 'roots/list' });
    await hold.send(note('notifications/message', { level: 'info', data: 'x' }));
    expect(inner.sent).toHaveLength(4);
    expect(hold.heldCount).toBe(0);
  });

  it('forgets what it held when the session closes', async () => {
    const { inner, hold } = await held();
    await hold.send(note('notifications/tools/list_changed'));
    await inner.close();
    hold.streamOpened();
    expect(inner.sent).toEqual([]);
  });
});
