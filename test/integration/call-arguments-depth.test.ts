/**
 * Audit s16 (wire), D2: a tools/call whose arguments nest objects and arrays thousands of levels deep
 * failed inside the hub (the stack overflowed in the argument preview and in the stdio send) and the
 * error blamed the server, which never got the call. Such a call is refused with -32602, a sentence that
 * gives the limit, on every path (the fast path over the bridge socket and HTTP, the SDK Server for a call
 * with a progress token), before the relay: no call is started, nothing is logged against the server.
 * Arguments right at the limit still go through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import type { HubEvent } from '../../shared/events.js';
import { MAX_ARGUMENT_DEPTH } from '../../electron/core/downstream/call-params.js';
import { attachSocketEndpoint, socketPathFor, type SocketEndpoint } from '../../electron/core/downstream/socket-endpoint.js';
import { hubProof } from '../../electron/core/files/hub-identity.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';
import { RawHttpSession } from '../support/raw-http-session.js';
import { RawSocketSession } from '../support/raw-socket-session.js';

let hub: TestHub;
let endpoint: SocketEndpoint;
let socket: RawSocketSession;
let http: RawHttpSession;

beforeAll(async () => {
  hub = await startTestHub({ version: 1, servers: { fx: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')) } } });
  endpoint = await attachSocketEndpoint(hub.hub, {
    path: socketPathFor({ dataDir: hub.dir, platform: process.platform }),
    platform: process.platform,
    proveIdentity: (nonce) => hubProof('depth-test-hub', nonce, 'socket'),
  });
  await hub.waitForStatus('fx', 'ready');
  socket = await RawSocketSession.open(endpoint.path, hub.token, 'deep-socket');
  http = await RawHttpSession.open(hub.url, hub.token, 'deep-http');
});

afterAll(async () => {
  socket?.close();
  await endpoint?.close();
  await hub?.stop();
});

/** `{"x":[[…]]}` as JSON text: arguments `levels` deep, the arguments object being the first level. */
function deepArguments(levels: number): string {
  return `{"x":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
}

/** A tools/call of fx__noop with `args` (JSON text), as one line; `meta` adds a progress token (the SDK Server's path). */
function callLine(id: string, args: string, meta = false): string {
  const extra = meta ? ',"_meta":{"progressToken":"p"}' : '';
  return `{"jsonrpc":"2.0","id":"${id}","method":"tools/call","params":{"name":"fx__noop","arguments":${args}${extra}}}`;
}

/** Posts raw JSON text on the HTTP session and reads the one JSON-RPC answer (as JSON or as an event). */
async function postRaw(body: string): Promise<{ id?: unknown; result?: { isError?: boolean }; error?: { code: number; message: string } }> {
  const res = await fetch(hub.url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${hub.token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': http.id,
      'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
    },
    body,
  });
  const text = await res.text();
  const data = text.startsWith('{')
    ? text
    : text
        .split('\n')
        .findLast((line) => line.startsWith('data: '))!
        .slice('data: '.length);
  return JSON.parse(data) as never;
}

const NESTED_TOO_DEEP = /^Invalid params: the arguments are nested more than 1,000 levels deep .*and call again\.$/;

describe('arguments nested too deeply', () => {
  it('are refused with -32602 giving the limit, on every path, and the server is not blamed', async () => {
    const events: HubEvent[] = [];
    const off = hub.hub.events.subscribe((e) => void events.push(e));
    try {
      for (const levels of [MAX_ARGUMENT_DEPTH + 1, 5_000, 100_000]) {
        const args = deepArguments(levels);
        const answers = {
          socket: await (socket.send(callLine(`s${levels}`, args)), socket.answer(`s${levels}`)),
          socketSdk: await (socket.send(callLine(`m${levels}`, args, true)), socket.answer(`m${levels}`)),
          httpLean: await postRaw(callLine(`h${levels}`, args)),
          httpSdk: await postRaw(callLine(`k${levels}`, args, true)),
        };
        for (const [path, answer] of Object.entries(answers)) {
          expect(answer.error?.code, `${path}, ${levels} levels`).toBe(-32602);
          expect(answer.error?.message, `${path}, ${levels} levels`).toMatch(NESTED_TOO_DEEP);
        }
      }
      // Each session goes on.
      expect((await socket.request({ id: 'after', method: 'tools/call', params: { name: 'fx__noop', arguments: {} } })).result).toBeDefined();
      expect((await postRaw(callLine('after', '{}'))).result?.isError).toBeFalsy();
    } finally {
      off();
    }
    // Only the two calls "after" ran: none of the deep ones started, failed, or was logged against fx.
    expect(events.filter((e) => e.type === 'call.started')).toHaveLength(2);
    expect(events.filter((e) => e.type === 'call.finished' && e.isError)).toEqual([]);
    expect(events.filter((e) => e.level === 'warn' || e.level === 'error')).toEqual([]);
    expect(hub.status.upstreamInfo('fx')).toMatchObject({ status: 'ready', restarts: 0 });
    expect(hub.status.upstreamInfo('fx')).not.toHaveProperty('error');
  });

  it('right at the limit go through to the server', async () => {
    const args = deepArguments(MAX_ARGUMENT_DEPTH);
    expect((await (socket.send(callLine('edge-s', args)), socket.answer('edge-s'))).result).toMatchObject({
      content: [{ type: 'text', text: 'ok' }],
    });
    expect((await postRaw(callLine('edge-h', args))).result).toMatchObject({ content: [{ type: 'text', text: 'ok' }] });
  });
});
