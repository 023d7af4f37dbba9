/**
 * Faulty upstreams never take the proxy down: a crash mid-call, a hang, garbage on stdout, a command that
 * does not exist, an HTTP server that goes away. Stopping the hub leaves no child process behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { NODE, fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';
import { alive, spawnUntil, type Started } from '../support/processes.js';

let hub: TestHub;
let client: Client;
let web: Started;

const text = (r: Record<string, unknown>) => (r.content as { text?: string }[]).map((c) => c.text ?? '').join('\n');

beforeAll(async () => {
  web = await spawnUntil(NODE, [fixture('fixture-server.mjs'), '--http', '--port', '0'], /listening on (\S+)/);
  hub = await startTestHub({
    version: 1,
    servers: {
      crashy: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')) },
      slow: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')), timeoutMs: 1200 },
      noisy: { type: 'stdio', ...nodeServer(fixture('noisy-stdout-server.mjs')) },
      missing: { type: 'stdio', command: 'spillway-no-such-command-xyz' },
      web: { type: 'http', url: web.match[1] },
    },
  });
  await Promise.all(['crashy', 'slow', 'noisy', 'web'].map((id) => hub.waitForStatus(id, 'ready')));
  client = await hub.connect();
});

afterAll(async () => {
  await hub?.stop();
  await web?.stop();
});

describe('faulty upstreams', () => {
  it('a command that does not exist shows an error status; the others are unaffected', async () => {
    await hub.waitForStatus('missing', 'error');
    const info = hub.status.upstreamInfo('missing');
    expect(info.error).toMatch(/could not find the program "spillway-no-such-command-xyz"/);
    const r = await client.callTool({ name: 'noisy__echo', arguments: { message: 'fine' } });
    expect(text(r)).toContain('fine');
  });

  it('a server that writes garbage to stdout still works, and the noise lands in its stderr tail', async () => {
    const r = await client.callTool({ name: 'noisy__echo', arguments: { message: 'through the noise' } });
    expect(text(r)).toContain('through the noise');
    expect(hub.status.upstreamInfo('noisy').stderrTail.join('\n')).toMatch(/stdout noise|stderr line/);
  });

  it('a crash mid-call gives an isError result, then the server reconnects', async () => {
    const before = hub.hub.pool.get('crashy')!.pid!;
    const back = hub.waitFor((e) => e.type === 'upstream.status' && e.server === 'crashy' && e.status === 'ready', 'crashy back');
    const r = await client.callTool({ name: 'crashy__crash', arguments: {} });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/closed the connection|crash/i);
    await back;
    expect(hub.hub.pool.get('crashy')!.pid).not.toBe(before);
    const ok = await client.callTool({ name: 'crashy__add', arguments: { a: 1, b: 2 } });
    expect(ok.structuredContent).toEqual({ sum: 3 });
  });

  it('a hanging call times out with a clear isError result and the server stays usable', async () => {
    const r = await client.callTool({ name: 'slow__hang', arguments: {} });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/did not answer "hang" within 1 s \(timeout\)/);
    const ok = await client.callTool({ name: 'slow__add', arguments: { a: 2, b: 2 } });
    expect(ok.structuredContent).toEqual({ sum: 4 });
  });

  it('a call to an upstream that went away returns isError at once; nothing hangs', async () => {
    await web.stop();
    const r = await client.callTool({ name: 'web__add', arguments: { a: 1, b: 1 } });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/Server "web"/);
    // The failure marks the server as down (it reconnects with backoff) instead of leaving it "ready".
    await hub.waitForStatus('web', 'error');
  });

  it('stopping the hub leaves no child process behind', async () => {
    const pids = ['crashy', 'slow', 'noisy'].map((id) => hub.hub.pool.get(id)!.pid!);
    expect(pids.every((pid) => alive(pid))).toBe(true);
    await client.close();
    await hub.hub.stop();
    expect(pids.filter((pid) => alive(pid))).toEqual([]);
  });
});
