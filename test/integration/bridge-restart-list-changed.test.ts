/**
 * After a hub restart the bridge introduces the client to the new hub, which announces only the changes
 * made after that: so the bridge tells the client itself that its tools, prompts and resources may have
 * changed, for each list both the client's first hub and the new one declared `listChanged` for.
 * A scripted socket hub whose capabilities change with each connection, in process.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answerTo, inProcessBridge, scriptedSocketHub, type Msg, type ScriptedHub } from '../support/bridge-in-process.js';

let dir: string;
const hubs: ScriptedHub[] = [];
const changes = (received: Msg[]) => received.filter((m) => m.method?.endsWith('/list_changed')).map((m) => m.method);

/** A hub that answers initialize with the capabilities of its connection's turn, and every other request with its turn. */
async function hub(name: string, turns: Record<string, unknown>[]): Promise<string> {
  const path = join(dir, `${name}.sock`);
  hubs.push(
    await scriptedSocketHub(path, (m, c) => {
      if (m.id === undefined) return;
      const result = m.method === 'initialize' ? { protocolVersion: '2025-06-18', capabilities: turns[c.index] } : { turn: c.index };
      c.write({ jsonrpc: '2.0', id: m.id, result });
    }),
  );
  return path;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-bridge-changed-'));
});

afterAll(async () => {
  await Promise.all(hubs.map((h) => h.close()));
  await rm(dir, { recursive: true, force: true });
});

/** A session on the first hub, restarted onto the second; what the client was told once it was answered again. */
async function restart(path: string): Promise<Msg[]> {
  const b = inProcessBridge({ socketPath: path });
  b.send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
  });
  await b.next(answerTo(1));
  b.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  b.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  expect((await b.next(answerTo(2))).result).toEqual({ turn: 0 });
  expect(changes(b.received)).toEqual([]);

  hubs.at(-1)!.connections[0].socket.destroy();
  await b.logged(/lost the connection/);
  b.send({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
  expect((await b.next(answerTo(3))).result).toEqual({ turn: 1 });
  b.bridge.close(0);
  await b.done;
  // The replayed initialize was answered to the bridge alone.
  expect(b.received.filter((m) => m.id === 1)).toHaveLength(1);
  return b.received;
}

it('tells the client after a restart that the lists the new hub announces may have changed', async () => {
  const all = { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { subscribe: true, listChanged: true } };
  const path = await hub('all', [all, { tools: { listChanged: true }, prompts: {}, resources: { listChanged: true } }]);
  const received = await restart(path);
  expect(changes(received)).toEqual(['notifications/tools/list_changed', 'notifications/resources/list_changed']);
  // Before the answers that follow the restart, so the client lists again with them.
  expect(received.findIndex((m) => m.method === 'notifications/tools/list_changed')).toBeLessThan(received.findIndex((m) => m.id === 3));
});

it('announces no list the client was not told could change', async () => {
  const all = { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true } };
  const path = await hub('tools-only', [{ tools: { listChanged: true }, prompts: {} }, all]);
  expect(changes(await restart(path))).toEqual(['notifications/tools/list_changed']);
});
