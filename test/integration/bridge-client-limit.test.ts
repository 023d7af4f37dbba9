/**
 * The bridge keeps the hub's limit on a client's message: a request over it is answered by the bridge
 * with the limit (never held whole, never sent on to the hub), and the session goes on. A scripted socket
 * hub, in process.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLIENT_MESSAGE_MAX_BYTES } from '../../shared/limits.js';
import { answerTo, inProcessBridge, scriptedSocketHub, type Msg, type ScriptedHub } from '../support/bridge-in-process.js';

let dir: string;
let hub: ScriptedHub;
const methods: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-bridge-limit-'));
  hub = await scriptedSocketHub(join(dir, 'hub.sock'), (m: Msg, c) => {
    if (m.method) methods.push(m.method);
    if (m.id === undefined) return;
    const result = m.method === 'initialize' ? { protocolVersion: '2025-06-18', capabilities: {} } : {};
    c.write({ jsonrpc: '2.0', id: m.id, result });
  });
});

afterAll(async () => {
  await hub.close();
  await rm(dir, { recursive: true, force: true });
});

it('answers a request over the client limit itself, sends nothing of it to the hub, and goes on', async () => {
  const b = inProcessBridge({ socketPath: join(dir, 'hub.sock') });
  b.send({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
  });
  await b.next(answerTo(0));
  b.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: { text: 'x'.repeat(CLIENT_MESSAGE_MAX_BYTES) } } });
  const refused = await b.next(answerTo(1));
  expect(refused.error).toMatchObject({ code: -32600, message: expect.stringContaining('Message too large') });
  b.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
  expect((await b.next(answerTo(2))).result).toEqual({});
  expect(methods).toEqual(['initialize', 'ping']);
  b.bridge.close(0);
});
