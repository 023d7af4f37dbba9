/**
 * Idle stop counts time without calls (audit s13): a server that sends log notifications all the time
 * is still stopped after its idle time, and what it says never resets the clock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { NODE, fixture } from '../support/hub-harness.js';
import { upstreamRun } from '../support/upstream-run.js';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

describe('idle stop', () => {
  it('stops a server that logs every 50 ms once no call came for its idle time', async () => {
    const t = upstreamRun({ type: 'stdio', command: NODE, args: [fixture('scripted-stdio-server.mjs'), 'chatty'] });
    stops.push(() => t.up.stop());
    t.up.idleStopMs = 500;
    t.up.start();
    await t.until(() => t.up.status === 'ready', 'ready');
    const ready = Date.now();
    expect(await t.up.client!.callTool({ name: 'noop', arguments: {} })).toEqual({ content: [{ type: 'text', text: 'ok' }] });
    await t.until(() => t.up.status === 'idle', 'the idle stop', 10_000);
    expect(Date.now() - ready).toBeGreaterThanOrEqual(500);
    expect(t.logs()).toBeGreaterThan(5);
  });
});
