/**
 * Audit s16 (fix review): a client's answer to a request the hub relayed from a server (here sampling)
 * that Spillway cannot pass on used to leave that request, and the tool call that made it, waiting for the
 * relayed request's 10 minutes (over 16 MiB: skipped without a word), or fail inside the hub blamed on the
 * server (nested thousands of levels deep: the stack overflowed). Now the server's request fails at once
 * with a sentence naming the limit, so the call ends with it, over the bridge socket and over HTTP, wherever
 * the answer has its id; and the session goes on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_MESSAGE_MAX_BYTES } from '../../shared/limits.js';
import { MAX_ARGUMENT_DEPTH } from '../../electron/core/downstream/call-params.js';
import { within } from '../support/bounded-wait.js';
import { openHubEntrances, type HubEntrances } from '../support/hub-entrances.js';
import type { TestHub } from '../support/hub-harness.js';
import { RawHttpSession, sseMessages } from '../support/raw-http-session.js';
import { RawSocketSession } from '../support/raw-socket-session.js';

let entrances: HubEntrances;
let hub: TestHub;

beforeAll(async () => {
  entrances = await openHubEntrances('answer-limit');
  hub = entrances.hub;
});

afterAll(async () => {
  await entrances?.close();
});

/** A socket session that declares sampling (its answers are written as raw lines: too big or too deep for JSON.stringify). */
const samplingSocket = (client: string) => RawSocketSession.open(entrances.socketPath, hub.token, client, { sampling: {} });

/** A sampling answer for `id` as JSON text, its id first or last (as the TypeScript SDK writes it), with `extra` members in its result. */
function answerLine(id: unknown, text: string, idFirst: boolean, extra = ''): string {
  const result = `"result":{"role":"assistant","model":"m","content":{"type":"text","text":"${text}"}${extra}}`;
  return idFirst ? `{"jsonrpc":"2.0","id":${JSON.stringify(id)},${result}}` : `{${result},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}

const big = () => Buffer.alloc(CLIENT_MESSAGE_MAX_BYTES + 1024 * 1024, 'a').toString('latin1');
const deepMeta = (levels: number) => `,"_meta":${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

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
        // Bounded well below the relayed request's own timeout (10 minutes).
        const answer = await within(
          c.next((l) => l.id === 'call'),
          20_000,
          'the answer to the call',
        );
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

describe('a sampling answer Spillway cannot pass on, over HTTP', () => {
  const cases = [
    {
      name: 'over 16 MiB with its Content-Length, its id last',
      body: (id: unknown) => answerLine(id, big(), false),
      chunked: false,
      expected: TOO_LARGE,
      status: 413,
    },
    {
      name: 'over 16 MiB as it arrives, its id first',
      body: (id: unknown) => answerLine(id, big(), true),
      chunked: true,
      expected: TOO_LARGE,
      status: 413,
    },
    {
      name: 'over 16 MiB as it arrives, its id last',
      body: (id: unknown) => answerLine(id, big(), false),
      chunked: true,
      expected: TOO_LARGE,
      status: 413,
    },
    {
      name: 'nested 5,000 levels deep',
      body: (id: unknown) => answerLine(id, 'x', true, deepMeta(5_000)),
      chunked: false,
      expected: TOO_DEEP,
      status: 202,
    },
  ];
  for (const { name, body, chunked, expected, status } of cases) {
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
      // What the server asked fails; an answer over the size limit is not taken (413, see http-oversized-answer-status.test.ts).
      expect((await s.postText(body(ask!.id), chunked)).status).toBe(status);
      const answer = await within(
        (async () => {
          for (let n = await stream.next(); !n.done; n = await stream.next()) if (n.value.id === 'call') return n.value;
          return 'the stream ended without an answer';
        })(),
        20_000,
        'the answer to the call',
      );
      expect(JSON.stringify(answer)).toMatch(expected);
      await s.close();
    }, 60_000);
  }

  it('a request over 16 MiB still gets 413, and an answer under the limits still goes through', async () => {
    const s = await RawHttpSession.open(hub.url, hub.token, 'http-sampler small', { sampling: {} });
    const call = `{"jsonrpc":"2.0","id":"r","method":"tools/call","params":{"name":"fx__noop","arguments":{"text":"${big()}"}}}`;
    expect((await s.postText(call, true)).status).toBe(413);
    const res = await s.post({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'fx__sample', arguments: { prompt: 'hi' } } });
    const stream = sseMessages(res);
    let ask: Record<string, unknown> | undefined;
    for (let n = await stream.next(); !n.done; n = await stream.next()) {
      if (n.value.method === 'sampling/createMessage') {
        ask = n.value;
        break;
      }
    }
    expect((await s.postText(answerLine(ask!.id, 'fine', false, deepMeta(MAX_ARGUMENT_DEPTH - 1)), false)).status).toBe(202);
    let answer: unknown;
    for (let n = await stream.next(); !n.done; n = await stream.next()) if (n.value.id === 'call') answer = n.value;
    expect(JSON.stringify(answer)).toContain('sampled: fine');
    await s.close();
  }, 60_000);
});
