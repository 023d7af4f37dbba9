/**
 * Audit (s19, downstream): requests were checked against the 1,000-level nesting limit, client
 * notifications not. A notifications/cancelled for a running call whose reason nested 100,000 levels deep
 * overflowed the stack in the relay: over the bridge socket the error was thrown out of the socket's reader
 * (an uncaught exception in the hub) and the session read nothing more; over HTTP the call was cancelled
 * and the POST answered "Parse error: Maximum call stack size exceeded". Such a notification is now
 * dropped before anything reads it, as a request is refused: it gets no answer, the call it names goes on,
 * the drop is logged (over the socket and HTTP alike), a POST carrying only it gets 400 with -32602, and the
 * session goes on.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { attachSocketEndpoint, socketPathFor, type SocketEndpoint } from '../../electron/core/downstream/socket-endpoint.js';
import { hubProof } from '../../electron/core/files/hub-identity.js';
import { within } from '../support/bounded-wait.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';
import { RawHttpSession } from '../support/raw-http-session.js';
import { RawSocketSession } from '../support/raw-socket-session.js';

let hub: TestHub;
let endpoint: SocketEndpoint;

beforeAll(async () => {
  hub = await startTestHub({ version: 1, servers: { fx: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')) } } });
  endpoint = await attachSocketEndpoint(hub.hub, {
    path: socketPathFor({ dataDir: hub.dir, platform: process.platform }),
    platform: process.platform,
    proveIdentity: (nonce) => hubProof('deep-notes-hub', nonce, 'socket'),
    // As the app attaches it (main.ts, headless.ts).
    onWarning: (message) => hub.hub.emit({ type: 'log', level: 'warn', message }),
  });
  await hub.waitForStatus('fx', 'ready');
});

afterAll(async () => {
  await endpoint?.close();
  await hub?.stop();
});

const LEVELS = 100_000;
const deepArray = `${'['.repeat(LEVELS)}${']'.repeat(LEVELS)}`;
const deepCancel = (requestId: string) =>
  `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"${requestId}","reason":${deepArray}}}`;
const deepRoots = `{"jsonrpc":"2.0","method":"notifications/roots/list_changed","params":{"_meta":{"x":${deepArray}}}}`;
const hangCall = (id: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'fx__hang', arguments: {} } });
const DROPPED = /^Invalid params: a notifications\/cancelled notification was dropped: "reason" is nested more than 1,000 levels deep/;

/** Waits for `client`'s call of fx__hang to run upstream. */
const hangStarted = (client: string) =>
  hub.waitFor((e) => e.type === 'call.started' && e.client === client && e.tool === 'hang', `${client} hang started`);
const hangFinished = (client: string) =>
  hub.waitFor((e) => e.type === 'call.finished' && e.client === client && e.tool === 'hang', `${client} hang finished`);

it('over the bridge socket: dropped and logged, the call it names goes on, the session reads on', async () => {
  const client = 'deep-notes-socket';
  const socket = await RawSocketSession.open(endpoint.path, hub.token, client);
  try {
    const started = hangStarted(client);
    socket.send(JSON.stringify(hangCall('h1')));
    await started;
    const logged = hub.waitFor((e) => e.type === 'log' && e.level === 'warn' && /notifications\/cancelled/.test(e.message), 'the drop logged');
    const loggedRoots = hub.waitFor((e) => e.type === 'log' && e.level === 'warn' && /roots\/list_changed/.test(e.message), 'the second drop logged');
    socket.send(deepCancel('h1'));
    socket.send(deepRoots);
    const after = await within(
      socket.request({ id: 'after', method: 'tools/call', params: { name: 'fx__noop', arguments: {} } }),
      20_000,
      'the next call',
    );
    expect(after.result).toMatchObject({ content: [{ type: 'text', text: 'ok' }] });
    const warning = (await within(logged, 20_000, 'the drop logged')) as { message: string };
    expect(warning.message).toMatch(new RegExp(`^${client} \\(bridge session\\): `));
    expect(warning.message.slice(`${client} (bridge session): `.length)).toMatch(DROPPED);
    expect(((await within(loggedRoots, 20_000, 'the second drop logged')) as { message: string }).message).toMatch(
      /"_meta" is nested more than 1,000/,
    );
    // The deep cancellation did not reach the call: a plain one ends it now.
    const finished = hangFinished(client);
    socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'h1', reason: 'plain' } }));
    expect(await within(finished, 20_000, 'the hang call cancelled')).toMatchObject({ action: 'cancelled' });
  } finally {
    socket.close();
  }
}, 60_000);

it('over HTTP: a POST of it alone gets 400 with -32602, in a batch it is dropped, and the call it names goes on', async () => {
  const client = 'deep-notes-http';
  const http = await RawHttpSession.open(hub.url, hub.token, client);
  try {
    const started = hangStarted(client);
    const abandoned = new AbortController();
    const pending = http.post(hangCall('h2'), abandoned.signal).then(
      (res) => res.text(),
      () => 'aborted',
    );
    await started;
    for (const [body, member] of [
      [deepCancel('h2'), DROPPED],
      [deepRoots, /^Invalid params: a notifications\/roots\/list_changed notification was dropped: "_meta" is nested more than 1,000/],
    ] as const) {
      const posted = await http.postText(body);
      expect(posted.status).toBe(400);
      const answer = JSON.parse(posted.body) as { id?: unknown; error?: { code?: number; message?: string } };
      expect(answer.id).toBeNull();
      expect(answer.error?.code).toBe(-32602);
      expect(answer.error?.message).toMatch(member);
    }
    // In a batch with a request: the request is answered, the notification dropped and the drop logged.
    const logged = hub.waitFor(
      (e) => e.type === 'log' && e.level === 'warn' && e.message.startsWith(`${client} (`) && /notifications\/cancelled/.test(e.message),
      'the drop logged',
    );
    const batch = await http.postText(`[${deepCancel('h2')},{"jsonrpc":"2.0","id":"list","method":"tools/list"}]`);
    expect(batch.status).toBe(200);
    expect(batch.body).toContain('fx__noop');
    expect(batch.body).not.toMatch(/Maximum call stack|Parse error/);
    expect(((await within(logged, 20_000, 'the drop logged')) as { message: string }).message).toMatch(
      /session\): Invalid params: a notifications\/cancelled/,
    );
    // The session goes on, and the call the deep cancellations named still runs: a plain one ends it now.
    expect((await http.request({ id: 'after', method: 'tools/call', params: { name: 'fx__noop', arguments: {} } })).body.result).toBeDefined();
    const finished = hangFinished(client);
    expect((await http.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'h2', reason: 'plain' } })).status).toBe(202);
    expect(await within(finished, 20_000, 'the hang call cancelled')).toMatchObject({ action: 'cancelled' });
    abandoned.abort();
    await pending;
  } finally {
    await http.close();
  }
}, 60_000);
