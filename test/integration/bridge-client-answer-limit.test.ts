/**
 * Audit s16 (fix review): the bridge keeps the hub's limit on a client's message, and dropped a client's
 * answer over it without a word, so the hub's request (sampling here), and the tool call that made it,
 * waited for 10 minutes. The bridge now sends the hub a small error answer of the same id naming the limit,
 * wherever the answer has its id, and nothing of the big line. A scripted socket hub, in process.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLIENT_MESSAGE_MAX_BYTES } from '../../shared/limits.js';
import { answerTo, inProcessBridge, scriptedSocketHub, type Msg, type ScriptedHub } from '../support/bridge-in-process.js';

let dir: string;
let hub: ScriptedHub;
/** What the hub got from the bridge, and the size of each line. */
const got: { m: Msg; bytes: number }[] = [];
let wake: (() => void) | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-bridge-answer-limit-'));
  hub = await scriptedSocketHub(join(dir, 'hub.sock'), (m: Msg, c) => {
    got.push({ m, bytes: JSON.stringify(m).length });
    wake?.();
    if (m.method === 'initialize') c.write({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: {} } });
    // A call asks the client to sample, as a server's tool would through the hub.
    if (m.method === 'tools/call')
      c.write({ jsonrpc: '2.0', id: `ask-${String(m.id)}`, method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } });
  });
});

afterAll(async () => {
  await hub.close();
  await rm(dir, { recursive: true, force: true });
});

/** The first message the hub got that matches, waiting for each message the hub gets until one does. */
async function hubGot(match: (m: Msg) => boolean): Promise<{ m: Msg; bytes: number }> {
  for (;;) {
    const found = got.find((g) => match(g.m));
    if (found) return found;
    await new Promise<void>((resolve) => (wake = resolve));
  }
}

it('tells the hub its request failed when the client answers it over the limit, wherever the id is, and goes on', async () => {
  const b = inProcessBridge({ socketPath: join(dir, 'hub.sock') });
  try {
    b.send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: { sampling: {} }, clientInfo: { name: 'c', version: '1' } },
    });
    await b.next(answerTo(0));
    const big = 'x'.repeat(CLIENT_MESSAGE_MAX_BYTES);
    for (const idFirst of [false, true]) {
      const call = idFirst ? 'first' : 'last';
      b.send({ jsonrpc: '2.0', id: call, method: 'tools/call', params: { name: 'sample', arguments: {} } });
      const ask = await b.next((m) => m.method === 'sampling/createMessage' && m.id === `ask-${call}`);
      const result = { role: 'assistant', model: 'm', content: { type: 'text', text: big } };
      // As most SDKs write an answer (id first), or as the TypeScript SDK does (id last).
      b.input.write(`${JSON.stringify(idFirst ? { jsonrpc: '2.0', id: ask.id, result } : { result, jsonrpc: '2.0', id: ask.id })}\n`);
      const failed = await hubGot((m) => m.id === ask.id);
      expect(failed.m.result, call).toBeUndefined();
      expect(failed.m.error, call).toMatchObject({
        code: -32600,
        message: expect.stringMatching(/^Message too large: it is 16(\.\d)? MiB, over the 16 MiB/),
      });
      expect(failed.bytes, call).toBeLessThan(1024);
    }
    // Nothing of the big lines reached the hub, and the session goes on.
    expect(got.every((g) => g.bytes < 1024)).toBe(true);
    b.send({ jsonrpc: '2.0', id: 'ping', method: 'ping' });
    await hubGot((m) => m.id === 'ping');
  } finally {
    b.bridge.close(0);
  }
});
