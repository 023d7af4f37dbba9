/**
 * The client closes stdin with requests unanswered (a one-shot pipe, or a client shutting down mid-call):
 * the bridge still relays their answers, as a stdio server would give them, and ends once they are
 * written, or at its bound. A scripted socket hub, in process.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answerTo, inProcessBridge, scriptedSocketHub, type ScriptedHub } from '../support/bridge-in-process.js';

let dir: string;
let hub: ScriptedHub;
const path = () => join(dir, 'hub.sock');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-bridge-end-'));
  // 'slow' is answered once a later request has been: its answer comes last.
  let slow: (() => void) | undefined;
  hub = await scriptedSocketHub(path(), (m, c) => {
    if (m.id === undefined || m.method === 'never') return;
    const answer = () => c.write({ jsonrpc: '2.0', id: m.id, result: { echo: m.method } });
    if (m.method === 'slow') return void (slow = answer);
    answer();
    slow?.();
    slow = undefined;
  });
});

afterAll(async () => {
  await hub.close();
  await rm(dir, { recursive: true, force: true });
});

it('answers what the client sent before it closed stdin, then ends with 0', async () => {
  const b = inProcessBridge({ socketPath: path() });
  // Written and closed before the bridge reached the hub: the requests wait in its queue.
  b.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
  b.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  b.send({ jsonrpc: '2.0', id: 2, method: 'slow' });
  b.send({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
  b.input.end();
  expect(await b.done).toBe(0);
  expect(b.received.map((m) => [m.id, m.result?.echo])).toEqual([
    [1, 'initialize'],
    [3, 'tools/list'],
    [2, 'slow'],
  ]);
});

it('ends at its bound when an answer does not come, and says how many went unanswered', async () => {
  const b = inProcessBridge({ socketPath: path(), closingWaitMs: 300 });
  b.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
  await b.next(answerTo(1));
  b.send({ jsonrpc: '2.0', id: 2, method: 'never' });
  const began = Date.now();
  b.input.end();
  expect(await b.done).toBe(0);
  expect(Date.now() - began).toBeGreaterThanOrEqual(250);
  expect(b.log.join('\n')).toMatch(/the client closed its input; ending with 1 request unanswered/);
});

it('ends at once when nothing is unanswered', async () => {
  // A bridge that waited out its closing bound would end too, but say how many requests it left unanswered.
  const b = inProcessBridge({ socketPath: path(), closingWaitMs: 1 });
  b.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
  await b.next(answerTo(1));
  b.input.end();
  expect(await b.done).toBe(0);
  expect(b.log.filter((l) => l.includes('unanswered'))).toEqual([]);
});
