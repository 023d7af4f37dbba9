/**
 * An HTTP or SSE server whose connection is lost (audit s13): a call waiting on it fails at once rather
 * than waiting out its timeout, the status leaves 'ready' also when no call runs, and a session the
 * server forgot (a 404, e.g. after a restart) is replaced by a new one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { NODE, fixture, freePort, startTestHub, type TestHub } from '../support/hub-harness.js';
import { spawnUntil, type Started } from '../support/processes.js';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
});

const text = (r: Record<string, unknown>) => (r.content as { text?: string }[]).map((c) => c.text ?? '').join('\n');

async function serve(script: string, args: string[] = []): Promise<Started> {
  const web = await spawnUntil(NODE, [fixture(script), ...args], /listening on (\S+)/);
  stops.push(() => web.stop());
  return web;
}

async function hubWith(id: string, server: Record<string, unknown>): Promise<TestHub> {
  const hub = await startTestHub({ version: 1, servers: { [id]: server } });
  stops.push(() => hub.stop());
  await hub.waitForStatus(id, 'ready');
  return hub;
}

describe('a Streamable HTTP server', () => {
  it('that forgot the session: the call says it did not run, a new session starts, the next call works', async () => {
    const web = await serve('forgetful-http-server.mjs');
    const hub = await hubWith('web', { type: 'http', url: web.match[1] });
    const client = await hub.connect();
    expect(text(await client.callTool({ name: 'web__forget_sessions', arguments: {} }))).toBe('forgotten');
    const left = hub.waitFor((e) => e.type === 'upstream.status' && e.server === 'web' && e.status !== 'ready', 'web leaving ready');
    const r = await client.callTool({ name: 'web__add', arguments: { a: 1, b: 2 } });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(
      /^Server "web" no longer knows Spillway's session \(it may have restarted\), so "add" did not run\. Spillway is opening a new session/,
    );
    await left;
    await hub.waitForStatus('web', 'ready');
    expect(text(await client.callTool({ name: 'web__add', arguments: { a: 1, b: 2 } }))).toBe('3');
  });

  it('that restarted on the same port: calls work again once it is back', async () => {
    const port = await freePort();
    const web = await serve('fixture-server.mjs', ['--http', '--port', String(port)]);
    const hub = await hubWith('web', { type: 'http', url: web.match[1] });
    const client = await hub.connect();
    await web.stop();
    await serve('fixture-server.mjs', ['--http', '--port', String(port)]);
    // Either the hub saw the server go (its event stream broke) or the call finds the session gone.
    if (hub.hub.pool.get('web')!.status === 'ready') {
      const r = await client.callTool({ name: 'web__add', arguments: { a: 1, b: 2 } });
      if (r.isError) expect(text(r)).toMatch(/no longer knows Spillway's session|cannot be reached|closed the connection/);
    }
    await hub.waitForStatus('web', 'ready');
    const again = await client.callTool({ name: 'web__add', arguments: { a: 1, b: 2 } });
    expect(again.structuredContent).toEqual({ sum: 3 });
  });

  it('killed mid-call, its answer under way: the call fails at once, not after its timeout', async () => {
    const web = await serve('forgetful-http-server.mjs');
    const hub = await hubWith('web', { type: 'http', url: web.match[1], timeoutMs: 20_000 });
    const client = await hub.connect();
    // The first progress notification comes on the stream of the call's answer: that stream is open.
    let streaming!: () => void;
    const open = new Promise<void>((resolve) => (streaming = resolve));
    const pending = client.callTool({ name: 'web__hang', arguments: {} }, undefined, { timeout: 60_000, onprogress: () => streaming() });
    await open;
    const t0 = Date.now();
    web.child.kill('SIGKILL');
    const r = await pending;
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(text(r)).toMatch(/^Server "web" closed the connection during "hang" \(it may have crashed\); Spillway is reconnecting\.$/);
    expect(hub.hub.pool.get('web')!.status).not.toBe('ready');
  });

  it('killed while no call runs: the status leaves "ready"', async () => {
    const web = await serve('fixture-server.mjs', ['--http', '--port', '0']);
    const hub = await hubWith('web', { type: 'http', url: web.match[1] });
    const left = hub.waitFor((e) => e.type === 'upstream.status' && e.server === 'web' && e.status === 'error', 'web in error');
    web.child.kill('SIGKILL');
    await left;
    expect(hub.status.upstreamInfo('web').error).toMatch(/lost the connection to http:\/\/127\.0\.0\.1:\d+\/mcp|cannot reach/);
  });
});

describe('a legacy SSE server', () => {
  it('killed mid-call: the call fails at once and the status leaves "ready"', async () => {
    const web = await serve('legacy-sse-server.mjs');
    const hub = await hubWith('sse', { type: 'sse', url: web.match[1], timeoutMs: 20_000 });
    const client = await hub.connect();
    expect(text(await client.callTool({ name: 'sse__ping', arguments: {} }))).toBe('pong');
    // The server has the call once it sends progress on it.
    let working!: () => void;
    const progress = new Promise<void>((resolve) => (working = resolve));
    const pending = client.callTool({ name: 'sse__hang', arguments: {} }, undefined, { timeout: 60_000, onprogress: () => working() });
    await progress;
    web.child.kill('SIGKILL');
    // The tool never answers: only the lost connection ends the call (a timeout would say so, after 20 s).
    expect(text(await pending)).toMatch(/^Server "sse" closed the connection during "hang" \(it may have crashed\); Spillway is reconnecting\.$/);
    expect(hub.hub.pool.get('sse')!.status).not.toBe('ready');
  });

  it('whose stream drops mid-call (the process stays up): the call fails at once, then the server is back', async () => {
    const web = await serve('legacy-sse-server.mjs');
    const hub = await hubWith('sse', { type: 'sse', url: web.match[1], timeoutMs: 20_000 });
    const client = await hub.connect();
    const t0 = Date.now();
    const r = await client.callTool({ name: 'sse__drop', arguments: {} }, undefined, { timeout: 60_000 });
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(text(r)).toMatch(/closed the connection during "drop"/);
    await hub.waitForStatus('sse', 'ready');
    expect(text(await client.callTool({ name: 'sse__ping', arguments: {} }))).toBe('pong');
  });

  it('killed while no call runs: the status leaves "ready" and says the stream was lost', async () => {
    const web = await serve('legacy-sse-server.mjs');
    const hub = await hubWith('sse', { type: 'sse', url: web.match[1] });
    const left = hub.waitFor((e) => e.type === 'upstream.status' && e.server === 'sse' && e.status === 'error', 'sse in error');
    web.child.kill('SIGKILL');
    await left;
    expect(hub.status.upstreamInfo('sse').error).toMatch(/^lost the event stream from http:\/\/127\.0\.0\.1:\d+\/sse/);
  });
});
