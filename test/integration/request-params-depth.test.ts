/**
 * Audit s16 (fix review): the 1,000-level nesting limit covered tools/call only. A resources/read,
 * prompts/get or completion/complete whose params (a `_meta`, a prompt's arguments) nest 5,000 levels deep
 * overflowed the stack inside the hub, and the answer blamed the server (`-32603 Server "fx": Maximum call
 * stack size exceeded`). Any request is now refused with -32602 and a sentence giving the limit, over the
 * bridge socket and over HTTP, before the relay: nothing is logged against the server, which stays up.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { HubEvent } from '../../shared/events.js';
import { MAX_ARGUMENT_DEPTH } from '../../electron/core/downstream/call-params.js';
import { openHubEntrances, type HubEntrances } from '../support/hub-entrances.js';
import type { TestHub } from '../support/hub-harness.js';
import type { RawHttpSession } from '../support/raw-http-session.js';
import type { RawSocketSession } from '../support/raw-socket-session.js';

let entrances: HubEntrances;
let hub: TestHub;
let socket: RawSocketSession;
let http: RawHttpSession;

beforeAll(async () => {
  entrances = await openHubEntrances('deep-params');
  ({ hub, socket, http } = entrances);
});

afterAll(async () => {
  await entrances?.close();
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
          http: await http.requestText(line(`h-${method}-${levels}`)),
        };
        for (const [path, answer] of Object.entries(answers)) {
          expect(answer.error?.code, `${method} on ${path}, ${levels} levels`).toBe(-32602);
          expect(answer.error?.message, `${method} on ${path}, ${levels} levels`).toMatch(tooDeep(member));
        }
      }
    }
    // Each session goes on.
    expect((await socket.request({ id: 'after', method: 'tools/call', params: { name: 'fx__noop', arguments: {} } })).result).toBeDefined();
    expect(
      (await http.requestText('{"jsonrpc":"2.0","id":"after","method":"tools/call","params":{"name":"fx__noop","arguments":{}}}')).result,
    ).toBeDefined();
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
  for (const answer of [await (socket.send(line('edge-s')), socket.answer('edge-s')), await http.requestText(line('edge-h'))]) {
    expect(answer.error?.message ?? '').not.toMatch(/nested more than/);
    expect(answer.error?.message ?? '').not.toMatch(/Maximum call stack/);
  }
});
