/**
 * The /mcp endpoint answers as the SDK transport would, in the same order, whatever the body: a session it
 * does not know is 404 (the client starts anew), headers the SDK refuses are 406/415, a body over the limit
 * is 413 (answered, not a dropped connection), and a plain call goes out on an event stream when the
 * client's Accept refuses JSON. Raw HTTP, so what is on the wire is what is checked.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { CLIENT_MESSAGE_MAX_BYTES } from '../../shared/limits.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
let sid: string;

const H = (extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${hub.token}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  ...extra,
});

beforeAll(async () => {
  hub = await startTestHub({ version: 1, servers: { fx: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')) } } });
  await hub.waitForStatus('fx', 'ready');
  const r = await fetch(hub.url, {
    method: 'POST',
    headers: H(),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'audit', version: '1' } },
    }),
  });
  await r.text();
  sid = r.headers.get('mcp-session-id')!;
  await (
    await fetch(hub.url, {
      method: 'POST',
      headers: H({ 'mcp-session-id': sid }),
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    })
  ).text();
});

afterAll(async () => {
  await hub?.stop();
});

/** A raw POST that reports the status the server answered, or the socket error the client saw. */
function rawPost(headers: Record<string, string>, body: Buffer | string): Promise<{ status?: number; error?: string; body?: string }> {
  return new Promise((resolve) => {
    const u = new URL(hub.url);
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode, body: text }));
    });
    req.on('error', (e) => resolve({ error: (e as NodeJS.ErrnoException).code ?? e.message }));
    req.end(body);
  });
}

describe('request body limit', () => {
  it('answers a body over the limit with 413, as the SDK transport does', async () => {
    const huge = Buffer.alloc(CLIENT_MESSAGE_MAX_BYTES + 1024 * 1024, 0x20);
    const got = await rawPost({ ...H({ 'mcp-session-id': sid }), 'content-length': String(huge.length) }, huge);
    expect(got.status).toBe(413);
  }, 60_000);

  it('answers 413 when a body sent without Content-Length goes over the limit', async () => {
    const huge = Buffer.alloc(CLIENT_MESSAGE_MAX_BYTES + 1024 * 1024, 0x20);
    const got = await rawPost({ ...H({ 'mcp-session-id': sid }), 'transfer-encoding': 'chunked' }, huge);
    expect(got.status).toBe(413);
    expect(got.body).toMatch(/over the 16 MiB Spillway takes from a client/);
  }, 60_000);
});

describe('a client whose Accept refuses JSON', () => {
  it('answers on an event stream when Accept gives application/json q=0', async () => {
    const res = await fetch(hub.url, {
      method: 'POST',
      headers: H({ 'mcp-session-id': sid, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION, accept: 'application/json;q=0, text/event-stream' }),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'fx__noop', arguments: {} } }),
    });
    await res.text();
    expect(res.headers.get('content-type')).toBe('text/event-stream');
  });
});

describe('the checks the SDK transport makes before it reads the body come first', () => {
  it('answers a non-JSON Content-Type with 415, whatever the body', async () => {
    const got = await rawPost(H({ 'mcp-session-id': sid, 'content-type': 'text/plain' }), 'hello');
    expect(got.status).toBe(415);
  });
  it('answers a POST without text/event-stream in Accept with 406, whatever the body', async () => {
    const got = await rawPost(H({ 'mcp-session-id': sid, accept: 'application/json' }), 'hello');
    expect(got.status).toBe(406);
  });
  it('answers an unknown session with 404, whatever the body', async () => {
    const got = await rawPost(H({ 'mcp-session-id': 'no-such-session' }), 'hello');
    expect(got.status).toBe(404);
  });
});
