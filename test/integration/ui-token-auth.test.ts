/**
 * The browser UI's credential is the token, never a cookie (a browser sends 127.0.0.1's cookies to every
 * local port, so another local server the browser visits would get it and could replay it). A request with
 * any cookie and no token is refused, the old session cookie included; the page is served without setting
 * one; the token opens the API only in the Authorization header, and the events stream also as `?token=`.
 */
import { createHmac } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
let uiDir: string;
let port: string;

beforeAll(async () => {
  uiDir = await mkdtemp(join(tmpdir(), 'spillway-ui-'));
  await writeFile(join(uiDir, 'index.html'), '<!doctype html><title>Spillway</title>');
  hub = await startTestHub({ version: 1, servers: {} }, { uiDir });
  port = new URL(hub.url).port;
});
afterAll(async () => {
  await hub?.stop();
  await rm(uiDir, { recursive: true, force: true });
});

/** A raw GET (no fetch redirect handling, no cookie jar) with its status and Set-Cookie header. */
function rawGet(path: string, headers: Record<string, string> = {}): Promise<{ status: number; setCookie: string[] }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, setCookie: res.headers['set-cookie'] ?? [] }));
    });
    req.on('error', reject);
    req.end();
  });
}

const post = (path: string, headers: Record<string, string>, body: unknown = {}) =>
  fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** The cookie the hub used to set for the page (a keyed hash of the token for its port). */
const oldSessionCookie = () =>
  `spillway_session_${port}=${createHmac('sha256', hub.token).update(`spillway ui session ${port}`).digest('base64url')}`;

describe('the browser UI and cookies', () => {
  it('refuses a control call that carries only a cookie, the old session cookie included', async () => {
    const marker = join(hub.dir, 'ran');
    const add = {
      id: 'x',
      config: { type: 'stdio', command: process.execPath, args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`] },
    };
    for (const cookie of [oldSessionCookie(), `spillway_session=${hub.token}`, `token=${hub.token}`, `a=b; ${oldSessionCookie()}`]) {
      const res = await post('/api/upstreams.add', { cookie }, add);
      expect(res.status, cookie).toBe(401);
      expect(await res.json(), cookie).toMatchObject({ ok: false, code: 'unauthorized' });
      expect((await post('/api/status', { cookie })).status, cookie).toBe(401);
    }
    expect((await hub.api('upstreams.list')).value).toEqual([]);
    expect(existsSync(marker)).toBe(false);
  });

  it('serves the page with or without the token and never sets a cookie; a wrong token in the URL is refused', async () => {
    for (const path of [`/?token=${encodeURIComponent(hub.token)}`, '/', '/index.html']) {
      const r = await rawGet(path);
      expect(r.status, path).toBe(200);
      expect(r.setCookie, path).toEqual([]);
    }
    const wrong = await rawGet('/?token=not-the-token');
    expect(wrong.status).toBe(401);
    expect(wrong.setCookie).toEqual([]);
  });

  it('takes the token in the Authorization header; in the query only for the events stream', async () => {
    expect((await post('/api/status', { authorization: `Bearer ${hub.token}` })).status).toBe(200);
    expect((await post('/api/status', { authorization: 'Bearer not-the-token' })).status).toBe(401);
    expect((await post(`/api/status?token=${encodeURIComponent(hub.token)}`, {})).status).toBe(401);

    const events = await fetch(`http://127.0.0.1:${port}/api/events?token=${encodeURIComponent(hub.token)}`);
    expect(events.status).toBe(200);
    expect(events.headers.get('content-type')).toMatch(/text\/event-stream/);
    await events.body?.cancel();
    expect((await rawGet('/api/events?token=not-the-token')).status).toBe(401);
    expect((await rawGet('/api/events', { cookie: oldSessionCookie() })).status).toBe(401);
  });
});
