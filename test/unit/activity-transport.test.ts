/**
 * What counts as activity for idle stop (audit s13): our requests, the server's answers and requests,
 * our answers and cancellations — not its notifications (logs, progress) nor pings either way.
 */
import { describe, expect, it } from 'vitest';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ActivityTransport } from '../../electron/core/upstream/activity-transport.js';

async function linked() {
  const [ours, server] = InMemoryTransport.createLinkedPair();
  let touches = 0;
  const activity = new ActivityTransport(ours, () => touches++);
  await activity.start();
  await server.start();
  /** How many touches one message from the server makes. */
  const fromServer = async (message: JSONRPCMessage) => {
    const before = touches;
    await server.send(message);
    return touches - before;
  };
  const fromUs = async (message: JSONRPCMessage) => {
    const before = touches;
    await activity.send(message);
    return touches - before;
  };
  return { activity, fromServer, fromUs };
}

describe('ActivityTransport', () => {
  it('counts a call and its answer', async () => {
    const t = await linked();
    expect(await t.fromUs({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } })).toBe(1);
    expect(t.activity.busy).toBe(true);
    expect(await t.fromServer({ jsonrpc: '2.0', id: 1, result: { content: [] } })).toBe(1);
    expect(t.activity.busy).toBe(false);
  });

  it("does not count the server's notifications", async () => {
    const t = await linked();
    expect(await t.fromServer({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hi' } })).toBe(0);
    expect(await t.fromServer({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })).toBe(0);
    expect(await t.fromServer({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } })).toBe(0);
  });

  it("does not count pings either way, nor does the server's ping make it busy", async () => {
    const t = await linked();
    expect(await t.fromServer({ jsonrpc: '2.0', id: 7, method: 'ping' })).toBe(0);
    expect(t.activity.busy).toBe(false);
    expect(await t.fromUs({ jsonrpc: '2.0', id: 7, result: {} })).toBe(0);
    expect(await t.fromUs({ jsonrpc: '2.0', id: 8, method: 'ping' })).toBe(0);
  });

  it("counts the server's requests and our answers, and a withdrawn call", async () => {
    const t = await linked();
    expect(await t.fromServer({ jsonrpc: '2.0', id: 3, method: 'sampling/createMessage', params: {} })).toBe(1);
    expect(t.activity.busy).toBe(true);
    expect(await t.fromUs({ jsonrpc: '2.0', id: 3, result: {} })).toBe(1);
    expect(await t.fromUs({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'x' } })).toBe(1);
    expect(await t.fromUs({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 4 } })).toBe(1);
    expect(t.activity.busy).toBe(false);
  });
});
