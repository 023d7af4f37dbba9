/**
 * The crash-loop stop counts failures since the server last answered a call (audit s13): a tool that
 * crashes a server that serves other calls in between does not stop it for good, while a server that
 * dies on its own right after each start still stops, even while a client keeps calling it (calls it
 * never answers do not count as served). A call cut off tells what happens next, truthfully.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { NODE, fixture, nodeServer, startTestHub } from '../support/hub-harness.js';
import { upstreamRun } from '../support/upstream-run.js';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
});

const stoppedAfter = (error: string | undefined) => /stopped after/.test(error ?? '');
const text = (r: Record<string, unknown>) => (r.content as { text?: string }[]).map((c) => c.text ?? '').join('\n');

describe('the crash-loop stop', () => {
  it('is not reached by calls that crash a server that answers other calls in between', async () => {
    const t = upstreamRun({ type: 'stdio', command: NODE, args: [fixture('fixture-server.mjs')] }, { crashLoopFailures: 2, backoffBaseMs: 10 });
    stops.push(() => t.up.stop());
    t.up.start();
    for (let i = 0; i < 3; i++) {
      await t.until(() => t.up.status === 'ready', `ready before crash ${i + 1}`);
      expect(await t.up.client!.callTool({ name: 'add', arguments: { a: 1, b: i } })).toMatchObject({ structuredContent: { sum: 1 + i } });
      const dropped = t.until(() => t.up.status === 'error', `the drop of crash ${i + 1}`);
      await expect(t.up.client!.callTool({ name: 'crash', arguments: {} })).rejects.toThrow(/Connection closed/);
      await dropped;
      expect(stoppedAfter(t.up.error)).toBe(false);
    }
    await t.until(() => t.up.status === 'ready', 'ready after three crashes');
    expect(t.seen.some((s) => stoppedAfter(s.error))).toBe(false);
  });

  it('is still reached by a server that exits on its own right after each start', async () => {
    const args = [fixture('scripted-stdio-server.mjs'), 'exits-when-ready'];
    const t = upstreamRun({ type: 'stdio', command: NODE, args }, { crashLoopFailures: 3, backoffBaseMs: 10 });
    stops.push(() => t.up.stop());
    t.up.start();
    await t.until(() => stoppedAfter(t.up.error), 'the crash-loop stop');
    expect(t.seen.filter((s) => s.status === 'ready')).toHaveLength(3);
    expect(t.up.error).toMatch(
      /^the server exited \(code 3\) without output; run its command in a terminal to see why \(stopped after 3 failures in a row/,
    );
  });

  it('is reached by a server that dies on its own while a client keeps calling it, unanswered', async () => {
    const args = [fixture('scripted-stdio-server.mjs'), 'exits-unanswered'];
    const t = upstreamRun({ type: 'stdio', command: NODE, args }, { crashLoopFailures: 3, backoffBaseMs: 10 });
    stops.push(() => t.up.stop());
    t.up.start();
    for (let i = 0; i < 6 && !stoppedAfter(t.up.error); i++) {
      await t.until(() => t.up.status === 'ready' || stoppedAfter(t.up.error), `ready ${i + 1}`);
      if (t.up.status !== 'ready') break;
      // An agent retrying the tool: the call reaches the server, which never answers it and exits.
      t.up.client!.callTool({ name: 'noop', arguments: {} }).catch(() => undefined);
      await t.until(() => t.up.status !== 'ready', `drop ${i + 1}`);
    }
    await t.until(() => stoppedAfter(t.up.error), 'the crash-loop stop');
    expect(t.seen.filter((s) => s.status === 'ready')).toHaveLength(3);
  });
});

describe('a call cut off', () => {
  it('by a crash says the server is reconnecting, and it is', async () => {
    const hub = await startTestHub({ version: 1, servers: { fx: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')) } } });
    stops.push(() => hub.stop());
    await hub.waitForStatus('fx', 'ready');
    const client = await hub.connect();
    for (let i = 0; i < 5; i++) {
      await hub.waitForStatus('fx', 'ready');
      // It serves between the crashes: no crash loop, however many.
      expect((await client.callTool({ name: 'fx__add', arguments: { a: 1, b: i } })).structuredContent).toEqual({ sum: 1 + i });
      const r = await client.callTool({ name: 'fx__crash', arguments: {} });
      expect(text(r)).toBe('Server "fx" closed the connection during "crash" (it may have crashed); Spillway is reconnecting.');
    }
    await hub.waitForStatus('fx', 'ready');
    expect((await client.callTool({ name: 'fx__add', arguments: { a: 1, b: 2 } })).structuredContent).toEqual({ sum: 3 });
  });

  it('by a stop says so, not that the server is reconnecting', async () => {
    const hub = await startTestHub({ version: 1, servers: { fx: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')) } } });
    stops.push(() => hub.stop());
    await hub.waitForStatus('fx', 'ready');
    const client = await hub.connect();
    const started = hub.waitFor((e) => e.type === 'call.started' && e.tool === 'hang', 'the call');
    const pending = client.callTool({ name: 'fx__hang', arguments: {} });
    await started;
    await hub.hub.pool.get('fx')!.stop();
    expect(text(await pending)).toBe('Server "fx" was stopped during "hang"; the call did not finish.');
  });
});
