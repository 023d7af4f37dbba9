/**
 * Audit s16 (wire), D2: a tools/call whose arguments nest objects and arrays thousands of levels deep
 * failed inside the hub (the stack overflowed in the argument preview and in the stdio send) and the
 * error blamed the server, which never got the call. Such a call is refused with -32602, a sentence that
 * gives the limit, on every path (the fast path over the bridge socket and HTTP, the SDK Server for a call
 * with a progress token), before the relay: no call is started, nothing is logged against the server.
 * Arguments right at the limit still go through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  entrances = await openHubEntrances('deep');
  ({ hub, socket, http } = entrances);
});

afterAll(async () => {
  await entrances?.close();
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
          httpLean: await http.requestText(callLine(`h${levels}`, args)),
          httpSdk: await http.requestText(callLine(`k${levels}`, args, true)),
        };
        for (const [path, answer] of Object.entries(answers)) {
          expect(answer.error?.code, `${path}, ${levels} levels`).toBe(-32602);
          expect(answer.error?.message, `${path}, ${levels} levels`).toMatch(NESTED_TOO_DEEP);
        }
      }
      // Each session goes on.
      expect((await socket.request({ id: 'after', method: 'tools/call', params: { name: 'fx__noop', arguments: {} } })).result).toBeDefined();
      expect((await http.requestText(callLine('after', '{}'))).result?.isError).toBeFalsy();
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
    expect((await http.requestText(callLine('edge-h', args))).result).toMatchObject({ content: [{ type: 'text', text: 'ok' }] });
  });
});
