/**
 * The control contract over HTTP: add, update, remove, restart and test upstreams; settings with field
 * errors; changes take effect without restarting the other upstreams, persist atomically, and send
 * tools/list_changed downstream. The config on disk stays valid and a foreign file is backed up first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import { connect } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { parseConfig, SECRET_REF } from '../../shared/config.js';
import { EVERYTHING, fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
let client: Client;

beforeAll(async () => {
  hub = await startTestHub({ mcpServers: { fx: nodeServer(fixture('fixture-server.mjs')) } });
  await hub.waitForStatus('fx', 'ready');
  client = await hub.connect();
});
afterAll(() => hub?.stop());

function listChanged(): Promise<void> {
  return new Promise((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
}

describe('control API', () => {
  it('adds an upstream: it starts alone, persists, and clients hear list_changed', async () => {
    const fxPid = hub.hub.pool.get('fx')!.pid;
    const changed = listChanged();
    const r = await hub.api<{ id: string }>('upstreams.add', {
      name: 'Everything Server',
      config: { type: 'stdio', ...nodeServer(EVERYTHING, ['stdio']) },
    });
    expect(r).toEqual({ ok: true, value: { id: 'everything-server' } });
    await hub.waitForStatus('everything-server', 'ready');
    await changed;
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('everything-server__echo');
    expect(hub.hub.pool.get('fx')!.pid).toBe(fxPid);
    const onDisk = parseConfig(await readFile(join(hub.dir, 'config.json'), 'utf8')).config;
    expect(Object.keys(onDisk.servers).sort()).toEqual(['everything-server', 'fx']);
  });

  it('backed up the original mcpServers file before its first write', async () => {
    const backups = (await readdir(hub.dir)).filter((f) => f.startsWith('config.json.') && f.endsWith('.bak'));
    expect(backups).toHaveLength(1);
    expect(JSON.parse(await readFile(join(hub.dir, backups[0]), 'utf8')).mcpServers.fx).toBeTruthy();
  });

  it('refuses an invalid upstream, naming the field, and changes nothing', async () => {
    const before = await readFile(join(hub.dir, 'config.json'), 'utf8');
    const r = await hub.api('upstreams.add', { config: { type: 'http', url: 'ftp://nope' } });
    expect(r.ok).toBe(false);
    expect(r.code).toBe('invalid');
    expect(r.field).toBe('config.url');
    const dup = await hub.api('upstreams.add', { id: 'fx', config: { type: 'http', url: 'http://127.0.0.1:1/mcp' } });
    expect(dup).toMatchObject({ ok: false, code: 'conflict', field: 'id' });
    expect(await readFile(join(hub.dir, 'config.json'), 'utf8')).toBe(before);
  });

  it('tests a config without saving it', async () => {
    const r = await hub.api<{ ok: boolean; tools: { name: string }[] }>('upstreams.test', {
      config: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')) },
    });
    expect(r.value!.ok).toBe(true);
    expect(r.value!.tools.map((t) => t.name)).toContain('add');
    const bad = await hub.api<{ ok: boolean; error: string }>('upstreams.test', { config: { type: 'stdio', command: 'no-such-binary-spillway' } });
    expect(bad.value!.ok).toBe(false);
    expect(bad.value!.error).toMatch(/could not find the program/);
    expect(Object.keys(hub.hub.config.servers)).not.toContain('test');
  });

  it('updates one upstream without touching the others; masked secrets keep their stored value', async () => {
    const fxPid = hub.hub.pool.get('fx')!.pid;
    const everything = hub.hub.config.servers['everything-server'];
    await hub.api('upstreams.update', { id: 'everything-server', config: { ...everything, env: { API_TOKEN: 'secret-value-123' } } });
    await hub.waitForStatus('everything-server', 'ready');
    const listed = (await hub.api<{ id: string; config: { env: Record<string, string> } }[]>('upstreams.list')).value!;
    const shown = listed.find((u) => u.id === 'everything-server')!.config.env.API_TOKEN;
    expect(shown).not.toContain('secret-value-123');
    // Sending the masked value back keeps the real one (in the secret store; the config refers to it).
    await hub.api('upstreams.update', { id: 'everything-server', config: { ...everything, env: { API_TOKEN: shown, OTHER: 'x' } } });
    expect(hub.hub.config.servers['everything-server']).toMatchObject({ env: { API_TOKEN: SECRET_REF, OTHER: SECRET_REF } });
    expect(await hub.hub.secretStore.get('everything-server', 'env:API_TOKEN')).toBe('secret-value-123');
    expect(await hub.hub.secretStore.get('everything-server', 'env:OTHER')).toBe('x');
    expect(hub.hub.pool.get('fx')!.pid).toBe(fxPid);
  });

  it('restarts and removes an upstream; its tools leave the catalog', async () => {
    const before = hub.hub.pool.get('fx')!.pid;
    const back = hub.waitFor((e) => e.type === 'upstream.status' && e.server === 'fx' && e.status === 'ready');
    await hub.api('upstreams.restart', { id: 'fx' });
    await back;
    expect(hub.hub.pool.get('fx')!.pid).not.toBe(before);
    // The update before started it again: listed once more before it is removed, or no list changes.
    await hub.waitForStatus('everything-server', 'ready');
    const changed = listChanged();
    expect(await hub.api('upstreams.remove', { id: 'everything-server' })).toEqual({ ok: true, value: { removed: true, undoable: true } });
    await changed;
    expect((await client.listTools()).tools.some((t) => t.name.startsWith('everything-server__'))).toBe(false);
    expect(await hub.api('upstreams.remove', { id: 'everything-server' })).toMatchObject({ ok: false, code: 'not_found' });
  });

  it('reads and writes settings, refusing a bad value with the field named', async () => {
    const r = await hub.api<{ spill: { thresholdTokens: number } }>('settings.set', {
      spill: { action: 'spill', thresholdTokens: 5000, previewTokens: 500, ttlHours: 24, quotaBytes: 1 << 30 },
    });
    expect(r.value!.spill.thresholdTokens).toBe(5000);
    // A partial patch changes only what it names.
    const partial = await hub.api<{ port: number; spill: { thresholdTokens: number; previewTokens: number } }>('settings.set', {
      spill: { previewTokens: 700 },
    });
    expect(partial.value!.spill).toMatchObject({ thresholdTokens: 5000, previewTokens: 700 });
    const bad = await hub.api('settings.set', { spill: { thresholdTokens: -1 } });
    expect(bad).toMatchObject({ ok: false, code: 'invalid', field: 'spill.thresholdTokens' });
    expect((await hub.api<{ spill: { thresholdTokens: number } }>('settings.get')).value!.spill.thresholdTokens).toBe(5000);
  });

  it("lists a server's tools with the tokens each schema costs", async () => {
    const tools = (await hub.api<{ name: string; original: string; schemaTokens: number }[]>('upstreams.tools', { id: 'fx' })).value!;
    const add = tools.find((t) => t.original === 'add')!;
    expect(add.name).toBe('fx__add');
    expect(add.schemaTokens).toBeGreaterThan(20);
    expect(add.schemaTokens).toBeLessThan(400);
  });

  it('answers an unknown method and a malformed request clearly', async () => {
    expect(await hub.api('nope.nothing')).toMatchObject({ ok: false, code: 'not_found' });
    expect(await hub.api('upstreams.remove', {})).toMatchObject({ ok: false, code: 'invalid', field: 'id' });
  });

  it('lets go of an events reader that stopped reading, instead of holding every event for it', async () => {
    const { origin } = hub.hub.endpoint;
    const socket = connect({ host: '127.0.0.1', port: Number(new URL(origin).port) });
    await once(socket, 'connect');
    socket.write(`GET /api/events?types=log HTTP/1.1\r\nHost: ${new URL(origin).host}\r\nAuthorization: Bearer ${hub.token}\r\n\r\n`);
    socket.pause();
    await once(socket, 'readable');
    // 20 MB of events: more than the socket buffers and the hub's limit hold.
    const line = 'x'.repeat(10_000);
    for (let i = 0; i < 2_000; i++) hub.hub.emit({ type: 'log', level: 'info', message: `${i} ${line}` });
    let received = 0;
    socket.on('data', (chunk: Buffer) => (received += chunk.length));
    socket.resume();
    await once(socket, 'end');
    // It was let go: the stream ended, short of the 20 MB sent its way.
    expect(received).toBeLessThan(15_000_000);
  });

  it('streams events over SSE to a subscriber', async () => {
    const res = await fetch(`${hub.hub.endpoint.origin}/api/events?types=call.finished`, { headers: { authorization: `Bearer ${hub.token}` } });
    const reader = res.body!.getReader();
    void client.callTool({ name: 'fx__add', arguments: { a: 1, b: 1 } });
    let text = '';
    while (!text.includes('"call.finished"')) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    expect(text).toMatch(/data: \{.*"tool":"add"/);
  });
});
