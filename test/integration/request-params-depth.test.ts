/**
 * Audit s16 (fix review): the 1,000-level nesting limit covered tools/call only. A resources/read,
 * prompts/get or completion/complete whose params (a `_meta`, a prompt's arguments) nest 5,000 levels deep
 * overflowed the stack inside the hub, and the answer blamed the server (`-32603 Server "fx": Maximum call
 * stack size exceeded`). Any request is now refused with -32602 and a sentence giving the limit, over the
 * bridge socket and over HTTP, before the relay: nothing is logged against the server, which stays up.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import type { HubEvent } from '../../shared/events.js';
import { MAX_ARGUMENT_DEPTH } from '../../electron/core/downstream/call-params.js';
import { attachSocketEndpoint, socketPathFor, type SocketEndpoint } from '../../electron/core/downstream/socket-endpoint.js';
import { hubProof } from '../../electron/core/files/hub-identity.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';
import { RawHttpSession } from '../support/raw-http-session.js';
import { RawSocketSession, type HubLine } from '../support/raw-socket-session.js';

let hub: TestHub;
let endpoint: SocketEndpoint;
let socket: RawSocketSession;
let http: RawHttpSession;

beforeAll(async () => {
  hub = await startTestHub({ version: 1, servers: { fx: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')) } } });
  endpoint = await attachSocketEndpoint(hub.hub, {
    path: socketPathFor({ dataDir: hub.dir, platform: process.platform }),
    platform: process.platform,
    proveIdentity: (nonce) => hubProof('params-depth-test-hub', nonce, 'socket'),
  });
  await hub.waitForStatus('fx', 'ready');
  socket = await RawSocketSession.open(endpoint.path, hub.token, 'deep-params-socket');
  http = await RawHttpSession.open(hub.url, hub.token, 'deep-params-http');
});

afterAll(async () => {
  socket?.close();
  await endpoint?.close();
  await hub?.stop();
});

/** `{"a":{"a":…1}}` as JSON text, `levels` objects deep. */
const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

/** Requests other than tools/call, as JSON text, with params nested `levels` deep in the member the sentence names. */
function requests(levels: number): { method: string; member: string; params: string }[] {
  return [
    { method: 'resources/read', member: '_meta', params: `{"uri":"fixture://big/10","_meta":${deep(levels)}}` },
    { method: 'prompts/get', member: 'arguments', params: `{"name":"p","arguments":${deep(levels)}}` },
    {
      method: 'completion/complete',
      member: '_meta',
      params: `{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"v"},"_meta":${deep(levels)}}`,
    },
  ];
}

/** Posts raw JSON text on the HTTP session and reads the one JSON-RPC answer (as JSON or as an event). */
async function postRaw(body: string): Promise<HubLine> {
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
  return JSON.parse(data) as HubLine;
}

const tooDeep = (member: string) =>
  new RegExp(
    `^Invalid params: "${member}" is nested more than 1,000 levels deep \\(objects and arrays inside each other\\), .*send the request again\\.$`,
  );

it('refuses any request nested too deeply with -32602 giving the limit, over the socket and HTTP, and the server is not blamed', async () => {
  const events: HubEvent[] = [];
  const off = hub.hub.events.subscribe((e) => void events.push(e));
  try {
    for (const levels of [MAX_ARGUMENT_DEPTH + 1, 5_000]) {
      for (const { method, member, params } of requests(levels)) {
        const line = (id: string) => `{"jsonrpc":"2.0","id":"${id}","method":"${method}","params":${params}}`;
        const answers = {
          socket: await (socket.send(line(`s-${method}-${levels}`)), socket.answer(`s-${method}-${levels}`)),
          http: await postRaw(line(`h-${method}-${levels}`)),
        };
        for (const [path, answer] of Object.entries(answers)) {
          expect(answer.error?.code, `${method} on ${path}, ${levels} levels`).toBe(-32602);
          expect(answer.error?.message, `${method} on ${path}, ${levels} levels`).toMatch(tooDeep(member));
        }
      }
    }
    // Each session goes on.
    expect((await socket.request({ id: 'after', method: 'tools/call', params: { name: 'fx__noop', arguments: {} } })).result).toBeDefined();
    expect((await postRaw('{"jsonrpc":"2.0","id":"after","method":"tools/call","params":{"name":"fx__noop","arguments":{}}}')).result).toBeDefined();
  } finally {
    off();
  }
  expect(events.filter((e) => e.level === 'warn' || e.level === 'error')).toEqual([]);
  expect(hub.status.upstreamInfo('fx')).toMatchObject({ status: 'ready', restarts: 0 });
  expect(hub.status.upstreamInfo('fx')).not.toHaveProperty('error');
});

it('relays a request right at the limit', async () => {
  const [read] = requests(MAX_ARGUMENT_DEPTH);
  const line = (id: string) => `{"jsonrpc":"2.0","id":"${id}","method":"${read.method}","params":${read.params}}`;
  for (const answer of [await (socket.send(line('edge-s')), socket.answer('edge-s')), await postRaw(line('edge-h'))]) {
    expect(answer.error?.message ?? '').not.toMatch(/nested more than/);
    expect(answer.error?.message ?? '').not.toMatch(/Maximum call stack/);
  }
});
