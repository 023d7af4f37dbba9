/**
 * JSON-RPC ids are the client's to choose: the bridge answers every one, even one that looks like the ids
 * of the requests it replays to a restarted hub (`spillway-bridge-…`), and a replay still stays hidden.
 * A scripted socket hub, in process.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answerTo, inProcessBridge, scriptedSocketHub, type Msg, type ScriptedHub } from '../support/bridge-in-process.js';

let dir: string;
const hubs: ScriptedHub[] = [];

/** A logging/setLevel request a restarted hub holds unanswered, to answer when the test says. */
interface Held {
  id: string | number;
  write: (m: Msg) => void;
}
let hold: (request: Held) => void = () => undefined;
/** Resolves with the logging/setLevel the restarted hub holds (the bridge replays it there). */
const held = new Promise<Held>((resolve) => (hold = resolve));

/** A hub that answers every request with its connection's turn; a restarted one holds logging/setLevel. */
async function hub(name: string): Promise<string> {
  const path = join(dir, `${name}.sock`);
  hubs.push(
    await scriptedSocketHub(path, (m, c) => {
      if (m.id === undefined) return;
      if (m.method === 'logging/setLevel' && c.index > 0) return hold({ id: m.id, write: c.write });
      const result = m.method === 'initialize' ? { protocolVersion: '2025-06-18', capabilities: {} } : { turn: c.index };
      c.write({ jsonrpc: '2.0', id: m.id, result });
    }),
  );
  return path;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-bridge-ids-'));
});

afterAll(async () => {
  await Promise.all(hubs.map((h) => h.close()));
  await rm(dir, { recursive: true, force: true });
});

const initialize = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } };

it('answers a client id that starts with spillway-bridge-, and ends at once when stdin closes', async () => {
  // A bridge that waited out its closing bound would end too, but say how many requests it left unanswered.
  const b = inProcessBridge({ socketPath: await hub('plain'), closingWaitMs: 1 });
  b.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: initialize });
  await b.next(answerTo(0));
  b.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  b.send({ jsonrpc: '2.0', id: 'spillway-bridge-7', method: 'ping' });
  expect((await b.next(answerTo('spillway-bridge-7'))).result).toEqual({ turn: 0 });
  // Nothing is left in flight: the bridge ends as stdin closes, not when its closing bound passes.
  b.input.end();
  expect(await b.done).toBe(0);
  expect(b.log.filter((l) => l.includes('unanswered'))).toEqual([]);
});

it('answers such ids while its own replayed requests are pending, and still hides the replay', async () => {
  const b = inProcessBridge({ socketPath: await hub('restart') });
  b.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: initialize });
  await b.next(answerTo(1));
  b.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  b.send({ jsonrpc: '2.0', id: 2, method: 'logging/setLevel', params: { level: 'info' } });
  await b.next(answerTo(2));

  hubs.at(-1)!.connections[0].socket.destroy();
  // The new hub was introduced again (initialize, then the log level, which it holds unanswered).
  const replayed = await held;
  expect(b.log.join('\n')).toMatch(/lost the connection/);
  const ids = ['spillway-bridge-1', 'spillway-bridge-2', 'spillway-bridge-3'];
  for (const id of ids) b.send({ jsonrpc: '2.0', id, method: 'ping' });
  for (const id of ids) expect((await b.next(answerTo(id))).result).toEqual({ turn: 1 });

  // The late answer to the replayed setLevel is the bridge's alone.
  replayed.write({ jsonrpc: '2.0', id: replayed.id, result: {} });
  b.send({ jsonrpc: '2.0', id: 3, method: 'ping' });
  await b.next(answerTo(3));
  expect(b.received.filter((m) => m.id === replayed.id)).toEqual([]);
  // The replayed initialize and setLevel were answered to the bridge alone.
  expect(b.received.filter((m) => m.id === 1 || m.id === 2)).toHaveLength(2);
  b.bridge.close(0);
  await b.done;
});
