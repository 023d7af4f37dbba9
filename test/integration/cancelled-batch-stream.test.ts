/**
 * A request cancelled in an HTTP batch ends the batch's response once nothing else of it is owed an answer
 * (audit s16). The SDK's transport ends a batch's event stream only when every request in it has an answer,
 * and a cancelled request never gets one: the response stayed open for the life of the session, and an
 * open response keeps the session from being closed once idle. Checked with the other request answered
 * after the cancel, and before it; the cancelled call on the SDK's path (a progress token) and on the hub's
 * own (a plain call). A real hub over HTTP with raw HTTP sessions; idle time runs on a clock the test moves.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { within } from '../support/bounded-wait.js';
import type { TestHub } from '../support/hub-harness.js';
import { startIdleClockHub, type IdleClockHub } from '../support/idle-clock-hub.js';
import { RawHttpSession, sseMessages } from '../support/raw-http-session.js';

let clocked: IdleClockHub;
let hub: TestHub;

beforeAll(async () => {
  clocked = await startIdleClockHub();
  hub = clocked.hub;
});

afterAll(async () => {
  await hub?.stop();
});

/** Posts a batch of fx__hang (id 1) and `other` (id 2) in a new raw session; its messages once the hang runs upstream. */
async function batchWithHang(client: string, progress: boolean, other: Record<string, unknown>) {
  const session = await RawHttpSession.open(hub.url, hub.token, client, { sampling: {} });
  const started = hub.waitFor((e) => e.type === 'call.started' && e.client === client && e.tool === 'hang', 'the hang started');
  const meta = progress ? { _meta: { progressToken: `${client}-1` } } : {};
  const res = await session.post([
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'fx__hang', arguments: {}, ...meta } },
    { jsonrpc: '2.0', id: 2, ...other },
  ]);
  const messages = sseMessages(res);
  return { session, messages, started };
}

async function cancelHang(session: RawHttpSession): Promise<void> {
  await (await session.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'enough' } })).text();
}

it('a batch with a cancelled request ends its response once the other is answered', async () => {
  const sample = { method: 'tools/call', params: { name: 'fx__sample', arguments: { prompt: 'hi' } } };
  const { session, messages, started } = await batchWithHang('batcher', true, sample);
  // fx__sample waits on the client's sampling answer: the cancel comes first.
  const asked = await messages.next();
  expect(asked.value).toMatchObject({ method: 'sampling/createMessage' });
  await started;
  await cancelHang(session);
  const result = { role: 'assistant', model: 'm', content: { type: 'text', text: 'ok' } };
  await (await session.post({ jsonrpc: '2.0', id: (asked.value as { id: number }).id, result })).text();
  // The stream stays open for the other request's answer.
  const answer = await within(messages.next(), 5000, 'the other request answered');
  expect(answer.value).toMatchObject({ id: 2, result: { content: [{ type: 'text', text: 'sampled: ok' }] } });
  // Nothing is left to answer on this response: it ends.
  const end = await within(messages.next(), 3000, 'the batch response ended');
  expect(end.done).toBe(true);
  await session.close();
});

for (const progress of [true, false]) {
  const path = progress ? 'the SDK path, a progress token' : 'the hub path, a plain call';

  it(`a batch whose other request was answered ends its response at the cancel, and its session is reaped (${path})`, async () => {
    const { session, messages, started } = await batchWithHang(`lister-${progress}`, progress, { method: 'tools/list', params: {} });
    await started;
    const answer = await within(messages.next(), 5000, 'the tools/list answered');
    expect(answer.value).toMatchObject({ id: 2, result: { tools: expect.any(Array) } });
    await cancelHang(session);
    const end = await within(messages.next(), 3000, 'the batch response ended');
    expect(end.done).toBe(true);
    expect(await clocked.reap(session.id)).toMatchObject({ reason: 'idle' });
  });
}
