/**
 * Audit s16 (fix review): a client's answer to a request the hub relayed from a server (here sampling)
 * that Spillway cannot pass on used to leave that request, and the tool call that made it, waiting for the
 * relayed request's 10 minutes (over 16 MiB: skipped without a word), or fail inside the hub blamed on the
 * server (nested thousands of levels deep: the stack overflowed). Now the server's request fails at once
 * with a sentence naming the limit, so the call ends with it, over the bridge socket and over HTTP, wherever
 * the answer has its id; and the session goes on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { createConnection, type Socket } from 'node:net';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { CLIENT_MESSAGE_MAX_BYTES } from '../../shared/limits.js';
import { MAX_ARGUMENT_DEPTH } from '../../electron/core/downstream/call-params.js';
import { attachSocketEndpoint, socketPathFor, type SocketEndpoint } from '../../electron/core/downstream/socket-endpoint.js';
import { hubProof, newNonce } from '../../electron/core/files/hub-identity.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';
import { RawHttpSession, sseMessages } from '../support/raw-http-session.js';

let hub: TestHub;
let endpoint: SocketEndpoint;

beforeAll(async () => {
  hub = await startTestHub({ version: 1, servers: { fx: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')) } } });
  endpoint = await attachSocketEndpoint(hub.hub, {
    path: socketPathFor({ dataDir: hub.dir, platform: process.platform }),
    platform: process.platform,
    proveIdentity: (nonce) => hubProof('answer-limit-test-hub', nonce, 'socket'),
  });
  await hub.waitForStatus('fx', 'ready');
});

afterAll(async () => {
  await endpoint?.close();
  await hub?.stop();
});

type Line = { id?: unknown; method?: string; result?: unknown; error?: { code: number; message: string } };

/** A socket session that declares sampling, spoken in raw lines (answers too big or too deep for JSON.stringify). */
async function samplingSocket(client: string) {
  const socket: Socket = createConnection(endpoint.path);
  socket.on('error', () => undefined);
  const lines: Line[] = [];
  const waiters: (() => void)[] = [];
  let buffer = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
      lines.push(JSON.parse(buffer.slice(0, nl)) as Line);
      buffer = buffer.slice(nl + 1);
      for (const wake of waiters.splice(0)) wake();
    }
  });
  const next = async (match: (line: Line) => boolean): Promise<Line> => {
    for (;;) {
      const at = lines.findIndex(match);
      if (at !== -1) return lines.splice(at, 1)[0];
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  const send = (line: string) => socket.write(`${line}\n`);
  send(JSON.stringify({ nonce: newNonce(), client }));
  await next((l) => 'hub' in l);
  send(JSON.stringify({ token: hub.token }));
  await next((l) => 'ok' in l);
  const params = { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: { sampling: {} }, clientInfo: { name: client, version: '1' } };
  send(JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params }));
  await next((l) => l.id === 'init');
  send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  return { send, next, close: () => socket.destroy() };
}

/** A sampling answer for `id` as JSON text, its id first or last (as the TypeScript SDK writes it), with `extra` members in its result. */
function answerLine(id: unknown, text: string, idFirst: boolean, extra = ''): string {
  const result = `"result":{"role":"assistant","model":"m","content":{"type":"text","text":"${text}"}${extra}}`;
  return idFirst ? `{"jsonrpc":"2.0","id":${JSON.stringify(id)},${result}}` : `{${result},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}

const big = () => Buffer.alloc(CLIENT_MESSAGE_MAX_BYTES + 1024 * 1024, 'a').toString('latin1');
const deepMeta = (levels: number) => `,"_meta":${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

/** Waits for `answer`, or says that none came within 20 s (the relayed request's own timeout is 10 minutes). */
function within20s<T>(answer: Promise<T>): Promise<T | 'no answer within 20 s'> {
  return Promise.race([answer, new Promise<'no answer within 20 s'>((resolve) => setTimeout(() => resolve('no answer within 20 s'), 20_000))]);
}

const TOO_LARGE = /Message too large: it is 17(\.\d)? MiB, over the 16 MiB Spillway takes from a client in one message/;
const TOO_DEEP = /the client's answer is nested more than 1,000 levels deep/;

describe('a sampling answer Spillway cannot pass on, over the bridge socket', () => {
  const cases = [
    { name: 'over 16 MiB, its id last', line: (id: unknown) => answerLine(id, big(), false), expected: TOO_LARGE },
    { name: 'over 16 MiB, its id first', line: (id: unknown) => answerLine(id, big(), true), expected: TOO_LARGE },
    { name: 'nested 5,000 levels deep', line: (id: unknown) => answerLine(id, 'x', false, deepMeta(5_000)), expected: TOO_DEEP },
  ];
  for (const { name, line, expected } of cases) {
    it(`${name}: the call that asked ends at once with the limit, and the session goes on`, async () => {
      const c = await samplingSocket(`socket-sampler ${name}`);
      try {
        c.send(JSON.stringify({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'fx__sample', arguments: { prompt: 'hi' } } }));
        const ask = await c.next((l) => l.method === 'sampling/createMessage');
        c.send(line(ask.id));
        const answer = await within20s(c.next((l) => l.id === 'call'));
        expect(answer).not.toBe('no answer within 20 s');
        expect(JSON.stringify(answer)).toMatch(expected);
        // The session goes on: a small answer to the next request goes through.
        c.send(JSON.stringify({ jsonrpc: '2.0', id: 'again', method: 'tools/call', params: { name: 'fx__sample', arguments: { prompt: 'hi' } } }));
        const again = await c.next((l) => l.method === 'sampling/createMessage');
        c.send(answerLine(again.id, 'small', false));
        expect(JSON.stringify(await c.next((l) => l.id === 'again'))).toContain('sampled: small');
      } finally {
        c.close();
      }
    }, 60_000);
  }
});

/**
 * Posts `body` on the session as raw text, with a Content-Length or chunked: the status the hub answered
 * (a 413 may come, and the connection close, before the whole body is sent).
 */
function postText(session: RawHttpSession, body: string, chunked: boolean): Promise<number | undefined> {
  const u = new URL(hub.url);
  const headers: Record<string, string> = {
    authorization: `Bearer ${hub.token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-session-id': session.id,
    'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
    ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(Buffer.byteLength(body)) }),
  };
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers }, (res) => {
      answered = true;
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    req.end(body);
  });
}

describe('a sampling answer Spillway cannot pass on, over HTTP', () => {
  const cases = [
    {
      name: 'over 16 MiB with its Content-Length, its id last',
      body: (id: unknown) => answerLine(id, big(), false),
      chunked: false,
      expected: TOO_LARGE,
    },
    { name: 'over 16 MiB as it arrives, its id first', body: (id: unknown) => answerLine(id, big(), true), chunked: true, expected: TOO_LARGE },
    { name: 'over 16 MiB as it arrives, its id last', body: (id: unknown) => answerLine(id, big(), false), chunked: true, expected: TOO_LARGE },
    { name: 'nested 5,000 levels deep', body: (id: unknown) => answerLine(id, 'x', true, deepMeta(5_000)), chunked: false, expected: TOO_DEEP },
  ];
  for (const { name, body, chunked, expected } of cases) {
    it(`${name}: the call that asked ends at once with the limit`, async () => {
      const s = await RawHttpSession.open(hub.url, hub.token, `http-sampler ${name}`, { sampling: {} });
      const res = await s.post({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'fx__sample', arguments: { prompt: 'hi' } } });
      const stream = sseMessages(res);
      let ask: Record<string, unknown> | undefined;
      for (let n = await stream.next(); !n.done; n = await stream.next()) {
        if (n.value.method === 'sampling/createMessage') {
          ask = n.value;
          break;
        }
      }
      expect(ask).toBeDefined();
      // Taken as any answer is: what the server asked fails, not the POST.
      expect(await postText(s, body(ask!.id), chunked)).toBe(202);
      const answer = await within20s(
        (async () => {
          for (let n = await stream.next(); !n.done; n = await stream.next()) if (n.value.id === 'call') return n.value;
          return 'the stream ended without an answer';
        })(),
      );
      expect(answer).not.toBe('no answer within 20 s');
      expect(JSON.stringify(answer)).toMatch(expected);
      await s.close();
    }, 60_000);
  }

  it('a request over 16 MiB still gets 413, and an answer under the limits still goes through', async () => {
    const s = await RawHttpSession.open(hub.url, hub.token, 'http-sampler small', { sampling: {} });
    const call = `{"jsonrpc":"2.0","id":"r","method":"tools/call","params":{"name":"fx__noop","arguments":{"text":"${big()}"}}}`;
    expect(await postText(s, call, true)).toBe(413);
    const res = await s.post({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'fx__sample', arguments: { prompt: 'hi' } } });
    const stream = sseMessages(res);
    let ask: Record<string, unknown> | undefined;
    for (let n = await stream.next(); !n.done; n = await stream.next()) {
      if (n.value.method === 'sampling/createMessage') {
        ask = n.value;
        break;
      }
    }
    expect(await postText(s, answerLine(ask!.id, 'fine', false, deepMeta(MAX_ARGUMENT_DEPTH - 1)), false)).toBe(202);
    let answer: unknown;
    for (let n = await stream.next(); !n.done; n = await stream.next()) if (n.value.id === 'call') answer = n.value;
    expect(JSON.stringify(answer)).toContain('sampled: fine');
    await s.close();
  }, 60_000);
});
