/**
 * After losing its hub the bridge waits restartGraceMs for it to come back, then starts one, and gives
 * that hub the whole timeoutMs before the calls of the outage fail. A scripted socket hub, in process.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answerTo, inProcessBridge, scriptedSocketHub, type ScriptedHub } from '../support/bridge-in-process.js';

let dir: string;
let hub: ScriptedHub;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-bridge-bound-'));
  hub = await scriptedSocketHub(join(dir, 'hub.sock'), (m, c) => {
    if (m.id !== undefined) c.write({ jsonrpc: '2.0', id: m.id, result: {} });
  });
});

afterAll(() => rm(dir, { recursive: true, force: true }));

it('gives a hub it starts after a loss the whole timeout, counted from the end of the grace', async () => {
  let startedAt = 0;
  const b = inProcessBridge({
    socketPath: join(dir, 'hub.sock'),
    restartGraceMs: 300,
    timeoutMs: 600,
    // A start that never brings a hub up.
    startHub: () => void (startedAt = Date.now()),
  });
  b.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
  await b.next(answerTo(1));
  // The bridge learns of the loss after this: its bounds count from later.
  const lostAt = Date.now();
  await hub.close();
  await b.logged(/lost the connection/);
  b.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
  const failed = await b.next(answerTo(2), 3000);
  const failedAt = Date.now();
  expect(failed.error?.message).toMatch(/did not start within 1 s/);
  // Started after the grace; failed a whole timeout after the grace, not as the start began.
  expect(startedAt - lostAt).toBeGreaterThanOrEqual(250);
  expect(failedAt - lostAt).toBeGreaterThanOrEqual(850);
  expect(failedAt - startedAt).toBeGreaterThanOrEqual(300);
  b.bridge.close(0);
});
