/**
 * The connect timeout bounds the whole connect (audit s13): an SSE stream that never sends its endpoint
 * event, and a server that answers initialize but never its tool list, fail within it, and the status
 * names what did not answer. A connection test (upstreams.test's connectOnce) answers too.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { NODE, fixture } from '../support/hub-harness.js';
import { spawnUntil } from '../support/processes.js';
import { upstreamRun } from '../support/upstream-run.js';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

describe('the connect timeout', () => {
  it('ends a connect to an SSE stream that never sends its endpoint event, and asks whether it is the SSE URL', async () => {
    const web = await spawnUntil(NODE, [fixture('silent-sse-server.mjs')], /listening on (\S+)/);
    stops.push(() => web.stop());
    const t = upstreamRun({ type: 'sse', url: web.match[1] }, { connectTimeoutMs: 1000 });
    stops.push(() => t.up.stop());
    t.up.start();
    await t.until(() => t.up.status === 'error', 'the failed connect', 5000);
    expect(t.seen.find((s) => s.status === 'error')!.at).toBeLessThan(3000);
    expect(t.up.error).toMatch(new RegExp(`^no MCP endpoint event from ${web.match[1]} within 1 s: is this the SSE URL\\?`));
  });

  it('answers a connection test on that URL (it used to wait forever)', async () => {
    const web = await spawnUntil(NODE, [fixture('silent-sse-server.mjs')], /listening on (\S+)/);
    stops.push(() => web.stop());
    const t = upstreamRun({ type: 'sse', url: web.match[1] }, { connectTimeoutMs: 1000 });
    stops.push(() => t.up.stop());
    await t.up.connectOnce();
    expect(t.up.status).toBe('error');
    expect(t.up.error).toMatch(/no MCP endpoint event/);
  });

  it('ends a connect whose tools/list is never answered, and names tools/list rather than initialize', async () => {
    const t = upstreamRun(
      { type: 'stdio', command: NODE, args: [fixture('scripted-stdio-server.mjs'), 'lists-unanswered'] },
      { connectTimeoutMs: 1000, crashLoopFailures: 1 },
    );
    stops.push(() => t.up.stop());
    t.up.start();
    await t.until(() => t.up.status === 'error', 'the failed connect', 10_000);
    expect(t.seen.find((s) => s.status === 'error')!.at).toBeLessThan(3000);
    expect(t.up.error).toMatch(/^the server started but did not send its list of tools within 1 s/);
  });
});
