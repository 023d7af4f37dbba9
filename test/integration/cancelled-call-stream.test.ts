/**
 * A cancelled tools/call ends its HTTP response (audit s16). The SDK sends nothing to a cancelled request,
 * and its transport ended a request's event stream only with the answer: a call with a progress token (the
 * SDK Server's path) left its response open for the life of the session, one connection per cancel, and an
 * open response keeps the session from being closed once idle. The lean path (a plain call) ended it
 * already; both are checked. A request cancelled in a batch does not end the stream the batch's other
 * requests are answered on. A real hub over HTTP with raw HTTP sessions; idle time runs on a clock the test
 * moves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';
import { RawHttpSession, sseMessages } from '../support/raw-http-session.js';

const config = { version: 1, servers: { fx: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')) } } };

let hub: TestHub;
let time = 1_000_000;

beforeAll(async () => {
  // The sweep runs a few times per timeout: a short one keeps it frequent; the clock decides who is idle.
  hub = await startTestHub(config, { httpSessions: { idleTimeoutMs: 100, now: () => time } });
  await hub.waitForStatus('fx', 'ready');
});

afterAll(async () => {
  await hub?.stop();
});

/** Resolves with `promise`, or fails the test with `what` after `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

let nextId = 1;

/** Calls fx__hang in a new raw session, cancels it once it runs upstream; the call's response body (as it ends) and the session. */
async function cancelledHang(progress: boolean): Promise<{ body: Promise<string>; session: RawHttpSession }> {
  const id = nextId++;
  const client = `canceller-${id}`;
  const session = await RawHttpSession.open(hub.url, hub.token, client);
  const started = hub.waitFor((e) => e.type === 'call.started' && e.client === client, `call ${id} started`);
  const finished = hub.waitFor((e) => e.type === 'call.finished' && e.client === client, `call ${id} finished`);
  const meta = progress ? { _meta: { progressToken: `p${id}` } } : {};
  const body = session
    .post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'fx__hang', arguments: {}, ...meta } })
    .then((res) => res.text());
  await started;
  await (await session.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'enough' } })).text();
  expect(await finished).toMatchObject({ action: 'cancelled' });
  return { body, session };
}

describe('a cancelled call', () => {
  for (const progress of [false, true]) {
    const path = progress ? 'the SDK path (a progress token)' : 'the lean path';

    it(`ends its HTTP response without an answer (${path})`, async () => {
      const { body, session } = await cancelledHang(progress);
      expect(await within(body, 5000, 'the response ended')).not.toContain('"result"');
      await session.close();
    });

    it(`leaves its session to be closed once idle (${path})`, async () => {
      const { session } = await cancelledHang(progress);
      const reaped = hub.waitFor((e) => e.type === 'session.reaped' && e.session === session.id, 'the session reaped');
      time += 10_000;
      expect(await within(reaped, 5000, 'the session reaped')).toMatchObject({ reason: 'idle' });
    });
  }
});

describe('a call cancelled in a batch', () => {
  // A hub of its own: the calls cancelled above would leave fx's sampling requests without a sure owner.
  let own: TestHub;
  beforeAll(async () => {
    own = await startTestHub(config);
    await own.waitForStatus('fx', 'ready');
  });
  afterAll(async () => {
    await own?.stop();
  });

  it('leaves the stream open for the other request of its batch', async () => {
    const session = await RawHttpSession.open(own.url, own.token, 'batcher', { sampling: {} });
    const started = own.waitFor((e) => e.type === 'call.started' && e.client === 'batcher' && e.tool === 'hang', 'the hang started');
    const res = await session.post([
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'fx__hang', arguments: {}, _meta: { progressToken: 'b1' } } },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fx__sample', arguments: { prompt: 'hi' } } },
    ]);
    const messages = sseMessages(res);
    // fx__sample waits on the client's sampling answer: the batch's stream must stay open for its result.
    const asked = await messages.next();
    expect(asked.value).toMatchObject({ method: 'sampling/createMessage' });
    await started;
    await (await session.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'enough' } })).text();
    await (
      await session.post({
        jsonrpc: '2.0',
        id: (asked.value as { id: number }).id,
        result: { role: 'assistant', model: 'm', content: { type: 'text', text: 'ok' } },
      })
    ).text();
    const answer = await within(messages.next(), 5000, 'the other request answered');
    expect(answer.value).toMatchObject({ id: 2, result: { content: [{ type: 'text', text: 'sampled: ok' }] } });
    await messages.return(undefined);
    await session.close();
  });
});
