/**
 * The endpoint's guards: 127.0.0.1 only, bearer token required, foreign Origin and Host refused (DNS
 * rebinding), unknown sessions 404, the control API behind the same token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
let port: number;

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});

/** node:http, because fetch() silently drops a custom Host header. */
function raw(options: { path?: string; method?: string; headers?: Record<string, string>; body?: string }) {
  return new Promise<{ status: number; body: string; headers: Record<string, unknown> }>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: options.path ?? '/mcp',
        method: options.method ?? 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...options.headers,
        },
      },
      (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

beforeAll(async () => {
  hub = await startTestHub({ version: 1, servers: {} });
  port = hub.hub.endpoint.port;
});
afterAll(() => hub?.stop());

describe('endpoint security', () => {
  it('binds to 127.0.0.1 only', () => {
    expect(hub.hub.endpoint.url.startsWith('http://127.0.0.1:')).toBe(true);
    // The listening socket's own address, not just the URL we print.
    const address: AddressInfo = hub.hub.endpoint.address();
    expect(address.address).toBe('127.0.0.1');
  });

  it('refuses a request without a token (401) and with a wrong one', async () => {
    expect((await raw({ body: INIT })).status).toBe(401);
    const wrong = await raw({ body: INIT, headers: { authorization: 'Bearer not-the-token' } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers['www-authenticate']).toMatch(/Bearer/);
  });

  it('accepts the right token', async () => {
    const ok = await raw({ body: INIT, headers: { authorization: `Bearer ${hub.token}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers['mcp-session-id']).toBeTruthy();
  });

  it('refuses a foreign Origin with 403, even with the token', async () => {
    const r = await raw({ body: INIT, headers: { authorization: `Bearer ${hub.token}`, origin: 'http://evil.example' } });
    expect(r.status).toBe(403);
    expect(r.body).toMatch(/Origin/);
  });

  it('refuses a foreign Host (DNS rebinding) with 403', async () => {
    const r = await raw({ body: INIT, headers: { authorization: `Bearer ${hub.token}`, host: 'evil.example' } });
    expect(r.status).toBe(403);
    expect(r.body).toMatch(/Host/);
    const alsoBad = await raw({ body: INIT, headers: { authorization: `Bearer ${hub.token}`, host: `evil.example:${port}` } });
    expect(alsoBad.status).toBe(403);
  });

  it('allows its own origin (the UI)', async () => {
    const r = await raw({ body: INIT, headers: { authorization: `Bearer ${hub.token}`, origin: `http://127.0.0.1:${port}` } });
    expect(r.status).toBe(200);
  });

  it('answers 404 for an unknown session and ends a session on DELETE', async () => {
    const unknown = await raw({
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      headers: { authorization: `Bearer ${hub.token}`, 'mcp-session-id': 'no-such-session' },
    });
    expect(unknown.status).toBe(404);
    const init = await raw({ body: INIT, headers: { authorization: `Bearer ${hub.token}` } });
    const sid = init.headers['mcp-session-id'] as string;
    const del = await raw({ method: 'DELETE', headers: { authorization: `Bearer ${hub.token}`, 'mcp-session-id': sid } });
    expect(del.status).toBe(200);
    const after = await raw({
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
      headers: { authorization: `Bearer ${hub.token}`, 'mcp-session-id': sid },
    });
    expect(after.status).toBe(404);
  });

  it('guards the control API with the same token', async () => {
    const r = await raw({ path: '/api/status', body: '{}' });
    expect(r.status).toBe(401);
    const ok = await raw({ path: '/api/status', body: '{}', headers: { authorization: `Bearer ${hub.token}` } });
    expect(JSON.parse(ok.body).ok).toBe(true);
    const evil = await raw({ path: '/api/status', body: '{}', headers: { authorization: `Bearer ${hub.token}`, origin: 'http://evil.example' } });
    expect(evil.status).toBe(403);
  });
});
