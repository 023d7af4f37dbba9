/**
 * The framer's shortcut past zod (plainMessage): it may only take messages JSONRPCMessageSchema accepts
 * with the same content, and must leave everything else to the schema.
 */
import { describe, expect, it } from 'vitest';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { LineFramer } from '../../electron/core/wire/line-framer.js';
import { plainMessage } from '../../electron/core/wire/plain-message.js';

const taken = [
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi' } } },
  { jsonrpc: '2.0', id: 'abc', method: 'tools/list' },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3, reason: 'x' } },
  { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'ok' }] } },
  { result: {}, jsonrpc: '2.0', id: 0 },
];

const leftToSchema = [
  { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } },
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', _meta: { progressToken: 5 } } },
  { jsonrpc: '2.0', id: 1, result: { _meta: { progressToken: 'x' } } },
  { jsonrpc: '2.0', id: 1.5, method: 'ping' },
  { jsonrpc: '2.0', id: 2 ** 60, method: 'ping' },
  { jsonrpc: '2.0', id: null, method: 'ping' },
  { jsonrpc: '1.0', id: 1, method: 'ping' },
  { jsonrpc: '2.0', id: 1, method: 'ping', extra: true },
  { jsonrpc: '2.0', id: 1, method: 'ping', params: null },
  { jsonrpc: '2.0', id: 1, method: 'ping', params: [1, 2] },
  { jsonrpc: '2.0', id: 1, method: 'ping', result: {} },
  { jsonrpc: '2.0', id: 1, result: [] },
  { jsonrpc: '2.0', result: {} },
  { jsonrpc: '2.0', id: 1 },
  { jsonrpc: '2.0', method: 5 },
  [],
  null,
  'text',
];

describe('plainMessage', () => {
  it.each(taken.map((m) => [JSON.stringify(m), m]))('takes %s with the content the schema would give', (_label, message) => {
    const parsed = JSONRPCMessageSchema.safeParse(message);
    expect(parsed.success).toBe(true);
    expect(plainMessage(message)).toEqual(parsed.data);
  });

  it.each(leftToSchema.map((m) => [JSON.stringify(m), m]))('leaves %s to the schema', (_label, message) => {
    expect(plainMessage(message)).toBeUndefined();
  });

  it('still reports what the schema refuses as noise, and delivers what it accepts', () => {
    const messages: unknown[] = [];
    const noise: string[] = [];
    const framer = new LineFramer({ onMessage: (m) => messages.push(m), onNoise: (l) => noise.push(l) });
    const lines = [...taken, ...leftToSchema].map((m) => JSON.stringify(m));
    framer.push(Buffer.from(`${lines.join('\n')}\n`));
    const accepted = [...taken, ...leftToSchema].filter((m) => JSONRPCMessageSchema.safeParse(m).success);
    expect(messages).toEqual(accepted.map((m) => JSONRPCMessageSchema.parse(m)));
    expect(noise.length).toBe(lines.length - accepted.length);
  });
});
