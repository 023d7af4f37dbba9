/**
 * The hub goes away while the bridge waits for its socket to drain (a big call to a hub that stopped
 * reading): the bridge stops reading the client meanwhile, and must read it again once that hub is lost,
 * or every later request of the session waits for good. A scripted socket hub, in process.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answerTo, inProcessBridge, scriptedSocketHub, type ScriptedHub } from '../support/bridge-in-process.js';

let dir: string;
let hub: ScriptedHub;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-bridge-lost-'));
  hub = await scriptedSocketHub(join(dir, 'hub.sock'), (m, c) => {
    if (m.id === undefined) return;
    c.write({ jsonrpc: '2.0', id: m.id, result: { hub: c.index } });
    // The first hub answers one request, then reads nothing more (as a stopped process).
    if (c.index === 0) c.socket.pause();
  });
});

afterAll(async () => {
  await hub.close();
  await rm(dir, { recursive: true, force: true });
});

it('answers the requests that follow when the hub is lost while a big request waits to be sent', async () => {
  const b = inProcessBridge({ socketPath: join(dir, 'hub.sock') });
  b.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
  expect((await b.next(answerTo(1))).result).toEqual({ hub: 0 });

  b.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x'.repeat(4_000_000) } } });
  // The socket holds the line: the bridge stops reading the client until it drains.
  if (!b.input.isPaused()) await once(b.input, 'pause');
  hub.connections[0].socket.destroy();
  expect((await b.next(answerTo(2))).error?.message).toMatch(/Spillway restarted; please retry/);

  await hub.connection(1);
  b.send({ jsonrpc: '2.0', id: 3, method: 'ping' });
  expect((await b.next(answerTo(3), 3000)).result).toEqual({ hub: 1 });
  b.bridge.close(0);
  expect(await b.done).toBe(0);
});
