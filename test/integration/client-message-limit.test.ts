/**
 * Audit s16 (wire), D1: a client could send the hub a message of up to 256 MiB over the bridge socket
 * (64 MiB over HTTP); one 100 MB tools/call held every session for ~1.5 s and left the hub ~925 MB big.
 * Both entrances now take one limit, CLIENT_MESSAGE_MAX_BYTES (16 MiB): a longer socket line is skipped
 * as it arrives and its request refused with a sentence naming the limit (whichever end of the line its
 * id is at), a longer HTTP body gets 413 with the same sentence. Nothing of it reaches the relay, the
 * session goes on, and a big message under the limit still goes through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubEvent } from '../../shared/events.js';
import { CLIENT_MESSAGE_MAX_BYTES } from '../../shared/limits.js';
import { openHubEntrances, type HubEntrances } from '../support/hub-entrances.js';
import type { TestHub } from '../support/hub-harness.js';
import type { RawHttpSession } from '../support/raw-http-session.js';
import type { RawSocketSession } from '../support/raw-socket-session.js';

let entrances: HubEntrances;
let hub: TestHub;
let socket: RawSocketSession;
let http: RawHttpSession;

beforeAll(async () => {
  entrances = await openHubEntrances('big');
  ({ hub, socket, http } = entrances);
});

afterAll(async () => {
  await entrances?.close();
});

const TOO_LARGE =
  /^Message too large: it is (over|[\d.]+ MiB, over) the 16 MiB Spillway takes from a client in one message\. Pass large data by reference .*calls\.$/;

/** A string argument that makes a fx__noop call about `bytes` long. */
const filler = (bytes: number) => Buffer.alloc(bytes, 'a').toString('latin1');

/** A tools/call line with the id last (as the TypeScript SDK writes it) or first (as most other SDKs do). */
function callLine(id: string, text: string, idFirst: boolean): string {
  const params = `"params":{"name":"fx__noop","arguments":{"text":"${text}"}}`;
  return idFirst
    ? `{"jsonrpc":"2.0","id":"${id}","method":"tools/call",${params}}`
    : `{"method":"tools/call",${params},"jsonrpc":"2.0","id":"${id}"}`;
}

describe('a client message over the limit', () => {
  it('is refused on the bridge socket with the limit named, wherever its id is, and the session goes on', async () => {
    const started: HubEvent[] = [];
    const off = hub.hub.events.subscribe((e) => void (e.type === 'call.started' && started.push(e)));
    try {
      const big = filler(CLIENT_MESSAGE_MAX_BYTES + 1024 * 1024);
      for (const idFirst of [false, true]) {
        const id = idFirst ? 'first' : 'last';
        socket.send(callLine(id, big, idFirst));
        const answer = await socket.answer(id);
        expect(answer.error?.code, id).toBe(-32600);
        expect(answer.error?.message, id).toMatch(TOO_LARGE);
        expect(answer.error?.message, id).toMatch(/it is 17(\.\d)? MiB/);
      }
      expect(started).toEqual([]);
      const after = await socket.request({ id: 'after', method: 'tools/call', params: { name: 'fx__noop', arguments: {} } });
      expect(after.result).toMatchObject({ content: [{ type: 'text', text: 'ok' }] });
    } finally {
      off();
    }
  }, 30_000);

  it('is answered 413 over HTTP with the same sentence, by its length or as it arrives', async () => {
    const body = callLine('h', filler(CLIENT_MESSAGE_MAX_BYTES + 1024), true);
    for (const chunked of [false, true]) {
      const got = await http.postText(body, chunked);
      expect(got.status, `chunked: ${chunked}`).toBe(413);
      expect((JSON.parse(got.body) as { error: { message: string } }).error.message, `chunked: ${chunked}`).toMatch(TOO_LARGE);
    }
  }, 30_000);
});

describe('a big client message under the limit', () => {
  it('goes through both entrances', async () => {
    // Under the 10 MiB an SDK stdio server (the fixture) reads in one message.
    const text = filler(9 * 1024 * 1024);
    socket.send(callLine('under', text, false));
    expect((await socket.answer('under')).result).toMatchObject({ content: [{ type: 'text', text: 'ok' }] });
    const got = await http.postText(callLine('under', text, true), false);
    expect(got.status).toBe(200);
    expect(got.body).toContain('"text":"ok"');
  }, 30_000);
});
