/**
 * Input that a plain object or decodeURIComponent trips over (issue 13, item 13): server ids that are
 * names of Object.prototype (`constructor`, `toString`) are servers like any other — no false conflict,
 * no false `removed: true`, their policies are their own — `__proto__` is refused by name (as a server id,
 * and as a server or tool in a policy), and a malformed `%` escape in a UI path answers 400 and one in a
 * cookie changes nothing (cookies are never read), never 500. A body over the size limit gets a 413
 * answer, not a reset. (The UI's credential is tested in ui-token-auth.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { parseConfig } from '../../shared/config.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
let client: Client;
let uiDir: string;

beforeAll(async () => {
  uiDir = await mkdtemp(join(tmpdir(), 'spillway-ui-'));
  await writeFile(join(uiDir, 'index.html'), '<!doctype html><title>Spillway</title>');
  await writeFile(join(uiDir, 'app.js'), 'export {};\n');
  hub = await startTestHub({ version: 1, servers: { constructor: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')) } } }, { uiDir });
  await hub.waitForStatus('constructor', 'ready');
  client = await hub.connect();
});
afterAll(async () => {
  await hub?.stop();
  await rm(uiDir, { recursive: true, force: true });
});

/** A raw GET: fetch() would normalize the path; a malformed escape has to reach the hub as sent. */
function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const { port } = new URL(hub.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('server ids named like Object.prototype members', () => {
  it('serves a server called "constructor": listed, its tools callable', async () => {
    const listed = (await hub.api<{ id: string; status: string }[]>('upstreams.list')).value!;
    expect(listed).toEqual([expect.objectContaining({ id: 'constructor', status: 'ready' })]);
    const r = await client.callTool({ name: 'constructor__add', arguments: { a: 2, b: 3 } });
    expect(r.isError).toBeFalsy();
  });

  it('adds "toString" and "valueOf" without a false conflict', async () => {
    const config = { type: 'http', url: 'http://127.0.0.1:9/mcp' };
    expect(await hub.api('upstreams.add', { id: 'toString', config })).toEqual({ ok: true, value: { id: 'toString' } });
    expect(await hub.api('upstreams.add', { id: 'valueOf', config })).toEqual({ ok: true, value: { id: 'valueOf' } });
    // A real duplicate is still one.
    expect(await hub.api('upstreams.add', { id: 'toString', config })).toMatchObject({ ok: false, code: 'conflict', field: 'id' });
    const onDisk = parseConfig(await readFile(join(hub.dir, 'config.json'), 'utf8')).config;
    expect(Object.keys(onDisk.servers).sort()).toEqual(['constructor', 'toString', 'valueOf']);
  });

  it('answers not_found for ids no server has, instead of a false `removed: true`', async () => {
    const before = await readFile(join(hub.dir, 'config.json'), 'utf8');
    for (const id of ['hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable']) {
      expect(await hub.api('upstreams.remove', { id })).toMatchObject({ ok: false, code: 'not_found' });
      expect(await hub.api('upstreams.restart', { id })).toMatchObject({ ok: false, code: 'not_found' });
      expect(await hub.api('upstreams.tools', { id })).toMatchObject({ ok: false, code: 'not_found' });
      expect(await hub.api('upstreams.update', { id, config: { type: 'http', url: 'http://127.0.0.1:9/mcp' } })).toMatchObject({
        ok: false,
        code: 'not_found',
      });
      expect(await hub.api('policies.effective', { server: id, tool: 'add' })).toMatchObject({ ok: false, code: 'invalid', field: 'server' });
    }
    expect(await readFile(join(hub.dir, 'config.json'), 'utf8')).toBe(before);
  });

  it('keeps policies per server: "constructor" gets its own, nothing leaks from the prototype', async () => {
    const set = await hub.api<{ values: { hidden: boolean } }>('policies.setTool', { server: 'constructor', tool: 'add', policy: { hidden: true } });
    expect(set.value!.values.hidden).toBe(true);
    const policies = (await hub.api<{ policies: { tools: Record<string, unknown> } }>('policies.get')).value!.policies;
    expect(Object.keys(policies.tools)).toEqual(['constructor']);
    const other = await hub.api<{ values: { hidden: boolean } }>('policies.effective', { server: 'toString', tool: 'add' });
    expect(other.value!.values.hidden).toBe(false);
    await hub.api('policies.resetTool', { server: 'constructor', tool: 'add' });
  });

  it('removes "toString" and only it', async () => {
    expect(await hub.api('upstreams.remove', { id: 'toString' })).toEqual({ ok: true, value: { removed: true, undoable: true } });
    expect(await hub.api('upstreams.remove', { id: 'toString' })).toMatchObject({ ok: false, code: 'not_found' });
    expect(Object.keys(hub.hub.config.servers).sort()).toEqual(['constructor', 'valueOf']);
  });

  it('refuses "__proto__" as an id, naming the field', async () => {
    const r = await hub.api('upstreams.add', { id: '__proto__', config: { type: 'http', url: 'http://127.0.0.1:9/mcp' } });
    expect(r).toMatchObject({ ok: false, code: 'invalid', field: 'id' });
    expect(() => parseConfig('{"version":1,"servers":{"__proto__":{"type":"stdio","command":"x"}}}')).toThrow(/servers/);
  });

  it('refuses a policy for a server or a tool named "__proto__", naming the field, and saves nothing', async () => {
    const before = await readFile(join(hub.dir, 'config.json'), 'utf8');
    const server = await hub.api('policies.setServer', { server: '__proto__', policy: { previewTokens: 300 } });
    expect(server).toMatchObject({ ok: false, code: 'invalid', field: 'server', message: expect.stringMatching(/"__proto__".*pick another server/) });
    const tool = await hub.api('policies.setTool', { server: 'constructor', tool: '__proto__', policy: { hidden: true } });
    expect(tool).toMatchObject({ ok: false, code: 'invalid', field: 'tool', message: expect.stringMatching(/"__proto__".*pick another tool/) });
    expect(await hub.api('policies.resetTool', { server: 'constructor', tool: '__proto__' })).toMatchObject({ ok: false, field: 'tool' });
    expect(await readFile(join(hub.dir, 'config.json'), 'utf8')).toBe(before);
    expect(Object.getPrototypeOf(hub.hub.config.policies.servers)).toBe(Object.prototype);
  });
});

describe('a control request over the size limit', () => {
  it('answers 413 with a message the UI can show, and the hub keeps answering', async () => {
    const res = await fetch(`${hub.hub.endpoint.origin}/api/settings.set`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hub.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ logRetentionDays: 30, pad: 'x'.repeat(8 * 1024 * 1024) }),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ ok: false, code: 'invalid', message: expect.stringMatching(/too large.*8 MB.*try again/) });
    expect(hub.hub.config.settings.logRetentionDays).not.toBe(30);
    expect((await hub.api('status')).ok).toBe(true);
  });
});

describe('malformed % escapes', () => {
  it('answers 400 for a UI path with a bad escape, and still serves good ones', async () => {
    for (const path of ['/%E0%A4%A', '/%zz', '/app%.js', '/%']) {
      const r = await get(path);
      expect(r.status, path).toBe(400);
    }
    expect((await get('/app.js')).status).toBe(200);
    expect((await get('/%61pp.js')).status).toBe(200);
  });

  it('answers 400 (not 500) for a request target that is no URL', async () => {
    for (const path of ['//', '//x:y@', '//[']) {
      const r = await get(path);
      expect(r.status, path).toBe(400);
      expect(r.body, path).toMatch(/Not a valid request path/);
    }
  });

  it('ignores a cookie with a bad escape: the page is served, the API still wants the token (never 500)', async () => {
    const { port } = new URL(hub.url);
    const r = await get('/', { cookie: `spillway_session_${port}=%E0%A4%A` });
    expect(r.status).toBe(200);
    const api = await fetch(`http://127.0.0.1:${port}/api/status`, {
      method: 'POST',
      headers: { cookie: `spillway_session_${port}=%zz` },
      body: '{}',
    });
    expect(api.status).toBe(401);
  });
});
