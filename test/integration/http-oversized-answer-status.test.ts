/**
 * Audit (s19, downstream): a client's answer POSTed over HTTP (to a sampling request the hub relayed from a
 * server) that is over the 16 MiB client message limit was dropped, its request failed with the limit, but
 * the POST was answered 202 Accepted, which says the hub took it. The spec's Streamable HTTP transport: input
 * the server cannot accept gets an HTTP error status. Such a POST is now answered 413 with a JSON-RPC error
 * body giving the limit, and the request it answered still fails at once (with the call that asked), not
 * after the relayed request's 10 minutes. An answer under the limit is still taken with 202.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLIENT_MESSAGE_MAX_BYTES } from '../../shared/limits.js';
import { within } from '../support/bounded-wait.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';
import { RawHttpSession, sseMessages } from '../support/raw-http-session.js';

let hub: TestHub;

beforeAll(async () => {
  hub = await startTestHub({ version: 1, servers: { fx: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')) } } });
  await hub.waitForStatus('fx', 'ready');
});

afterAll(async () => {
  await hub?.stop();
});

/** A sampling answer for `id` as JSON text, its id last (as the TypeScript SDK writes it). */
const answerText = (id: unknown, text: string) =>
  `{"result":{"role":"assistant","model":"m","content":{"type":"text","text":"${text}"}},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;

const TOO_LARGE = /Message too large: it is 17(\.\d)? MiB, over the 16 MiB Spillway takes from a client in one message/;

/** Calls fx__sample on `s`: the sampling request the hub relays, and the rest of the call's stream. */
async function askSampling(s: RawHttpSession, id: string) {
  const res = await s.post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'fx__sample', arguments: { prompt: 'hi' } } });
  const stream = sseMessages(res);
  for (let n = await stream.next(); !n.done; n = await stream.next()) {
    if (n.value.method === 'sampling/createMessage') return { ask: n.value, stream };
  }
  throw new Error('no sampling request came');
}

/** The answer to call `id` on its stream. */
function callAnswer(stream: AsyncGenerator<Record<string, unknown>>, id: string): Promise<unknown> {
  return within(
    (async () => {
      for (let n = await stream.next(); !n.done; n = await stream.next()) if (n.value.id === id) return n.value;
      return 'the stream ended without an answer';
    })(),
    20_000,
    `the answer to ${id}`,
  );
}

for (const chunked of [false, true]) {
  it(`answers 413 with a JSON-RPC error to an answer over 16 MiB (${chunked ? 'chunked' : 'with its Content-Length'}), and the call that asked fails at once`, async () => {
    const s = await RawHttpSession.open(hub.url, hub.token, `oversized-answer ${chunked}`, { sampling: {} });
    try {
      const { ask, stream } = await askSampling(s, 'call');
      const posted = await s.postText(answerText(ask.id, Buffer.alloc(CLIENT_MESSAGE_MAX_BYTES + 1024 * 1024, 'a').toString('latin1')), chunked);
      expect(posted.status).toBe(413);
      const body = JSON.parse(posted.body) as { jsonrpc?: string; id?: unknown; error?: { code?: number; message?: string } };
      expect(body).toMatchObject({ jsonrpc: '2.0', id: null });
      expect(typeof body.error?.code).toBe('number');
      expect(body.error?.message).toMatch(TOO_LARGE);
      expect(JSON.stringify(await callAnswer(stream, 'call'))).toMatch(TOO_LARGE);
      // The session goes on: an answer under the limit is taken (202) and passed on.
      const next = await askSampling(s, 'again');
      expect((await s.postText(answerText(next.ask.id, 'small'))).status).toBe(202);
      expect(JSON.stringify(await callAnswer(next.stream, 'again'))).toContain('sampled: small');
    } finally {
      await s.close();
    }
  }, 60_000);
}
