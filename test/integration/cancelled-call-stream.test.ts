/**
 * A cancelled tools/call ends its HTTP response (audit s16). The SDK sends nothing to a cancelled request,
 * and its transport ended a request's event stream only with the answer: a call with a progress token (the
 * SDK Server's path) left its response open for the life of the session, one connection per cancel, and an
 * open response keeps the session from being closed once idle. The lean path (a plain call) ended it
 * already; both are checked (a request cancelled in a batch: cancelled-batch-stream.test.ts). A real hub
 * over HTTP with raw HTTP sessions; idle time runs on a clock the test moves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { within } from '../support/bounded-wait.js';
import type { TestHub } from '../support/hub-harness.js';
import { startIdleClockHub, type IdleClockHub } from '../support/idle-clock-hub.js';
import { RawHttpSession } from '../support/raw-http-session.js';

let clocked: IdleClockHub;
let hub: TestHub;

beforeAll(async () => {
  clocked = await startIdleClockHub();
  hub = clocked.hub;
});

afterAll(async () => {
  await hub?.stop();
});

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
      expect(await clocked.reap(session.id)).toMatchObject({ reason: 'idle' });
    });
  }
});
