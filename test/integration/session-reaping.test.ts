/**
 * Abandoned HTTP sessions are closed (issue 13, item 9): past the cap the least recently used go, idle
 * ones first, and a session idle past the timeout goes, each with a `session.reaped` event; a session
 * with a request running or a client listening on its GET stream is not idle. A real hub over HTTP with
 * SDK clients and raw sessions (which, like an abandoned client, keep no GET stream open). Idle time runs
 * on a clock the test moves; the hub's own sweep finds what it made idle, and the test waits for the event.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import type { HubEvent } from '../../shared/events.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';
import { RawHttpSession } from '../support/raw-http-session.js';

const config = { version: 1, servers: { fx: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')) } } };

/** A clock the test moves by hand. */
function fakeClock(): { now: () => number; set: (ms: number) => void } {
  let time = 1_000_000;
  return { now: () => time, set: (ms) => (time = 1_000_000 + ms) };
}

type Reaped = Extract<HubEvent, { type: 'session.reaped' }>;

/** An SDK client connected over HTTP, resolved once the hub holds its GET stream open (it listens). */
async function listeningClient(hub: TestHub, name: string): Promise<Client> {
  let heard!: () => void;
  const listening = new Promise<void>((resolve) => (heard = resolve));
  const transport = new StreamableHTTPClientTransport(new URL(hub.url), {
    requestInit: { headers: { authorization: `Bearer ${hub.token}` } },
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      if (init?.method === 'GET' && res.ok) heard();
      return res;
    },
  });
  const client = new Client({ name, version: '1.0.0' });
  client.onerror = () => undefined; // a reaped client's GET stream fails to reconnect (404): expected here
  await client.connect(transport);
  await listening;
  return client;
}

async function statusSessions(hub: TestHub): Promise<{ ids: string[]; bytes: number }> {
  const res = await hub.api<{ sessions: { id: string }[] }>('status');
  return { ids: res.value!.sessions.map((s) => s.id).sort(), bytes: JSON.stringify(res.value).length };
}

function sessionIdOf(client: Client): string {
  return (client.transport as StreamableHTTPClientTransport).sessionId!;
}

describe('the cap on open HTTP sessions', () => {
  let hub: TestHub;
  const clock = fakeClock();
  const clients: Client[] = [];
  const reaped: Reaped[] = [];

  beforeAll(async () => {
    hub = await startTestHub(config, { httpSessions: { maxSessions: 3, now: clock.now } });
    await hub.waitForStatus('fx', 'ready');
    hub.hub.events.subscribe((e) => void (e.type === 'session.reaped' && reaped.push(e)));
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await hub?.stop();
  });

  it('closes the least recently used, idle ones first, never one with a call running; their requests then get 404', async () => {
    // Oldest: a client with a call running.
    const busy = await listeningClient(hub, 'busy');
    clients.push(busy);
    const started = hub.waitFor((e) => e.type === 'call.started' && e.client === 'busy', 'busy call started');
    const hanging = busy.callTool({ name: 'fx__hang', arguments: {} }).catch((e: Error) => e);
    await started;
    clock.set(1000);
    const listening = await listeningClient(hub, 'listening');
    clients.push(listening);
    clock.set(2000);
    const abandoned = await RawHttpSession.open(hub.url, hub.token, 'abandoned');
    clock.set(3000);

    // A fourth session: the idle one goes, though the listening one is older.
    const firstReap = hub.waitFor((e) => e.type === 'session.reaped', 'first reap');
    const fourth = await listeningClient(hub, 'fourth');
    clients.push(fourth);
    expect(await firstReap).toMatchObject({ session: abandoned.id, client: 'abandoned', reason: 'cap', level: 'warn' });
    clock.set(4000);

    // A fifth: none is idle now; the least recently used that runs no call goes (not the busy one).
    const secondReap = hub.waitFor((e) => e.type === 'session.reaped' && e.session !== abandoned.id, 'second reap');
    const fifth = await RawHttpSession.open(hub.url, hub.token, 'fifth');
    expect(await secondReap).toMatchObject({ session: sessionIdOf(listening), client: 'listening', reason: 'cap', idleMs: 3000 });
    expect(reaped).toHaveLength(2);

    // Their later requests: the 404 "session not found" that tells a client to start a new session.
    const gone = await abandoned.request({ id: 1, method: 'tools/list' });
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ error: { message: expect.stringMatching(/Session not found/) } });
    const refused = await listening.listTools().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StreamableHTTPError);
    expect((refused as StreamableHTTPError).code).toBe(404);

    // The status lists the three left; the busy call still runs and the others still answer.
    const status = await statusSessions(hub);
    expect(status.ids).toEqual([sessionIdOf(busy), sessionIdOf(fourth), fifth.id].sort());
    expect(hub.hub.sessions.size).toBe(3);
    expect((await fourth.callTool({ name: 'fx__noop', arguments: {} })).isError).toBeFalsy();
    expect((await fifth.request({ id: 2, method: 'tools/call', params: { name: 'fx__noop', arguments: {} } })).status).toBe(200);
    await busy.close();
    await hanging;
  });
});

describe('a refused initialize', () => {
  it('leaves no session behind', async () => {
    const hub = await startTestHub(config);
    try {
      const init = (id: number) => ({
        jsonrpc: '2.0',
        id,
        method: 'initialize',
        params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'twice', version: '1' } },
      });
      const res = await fetch(hub.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${hub.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify([init(1), init(2)]),
      });
      expect(res.status).toBe(400);
      await res.text();
      expect(hub.hub.sessions.size).toBe(0);
      expect((await statusSessions(hub)).ids).toEqual([]);
    } finally {
      await hub.stop();
    }
  });
});

describe('the idle timeout', () => {
  let hub: TestHub;
  const clock = fakeClock();
  const clients: Client[] = [];

  beforeAll(async () => {
    // The sweep runs a few times per timeout: a short one keeps it frequent; the clock decides who is idle.
    hub = await startTestHub(config, { httpSessions: { idleTimeoutMs: 100, now: clock.now } });
    await hub.waitForStatus('fx', 'ready');
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });

  afterAll(async () => {
    await hub?.stop();
  });

  it('closes 250 abandoned sessions: 200 stay open at most, then none once idle, and the status shrinks', async () => {
    const capped: Reaped[] = [];
    const off = hub.hub.events.subscribe((e) => void (e.type === 'session.reaped' && e.reason === 'cap' && capped.push(e)));
    const sessions: RawHttpSession[] = [];
    for (let i = 0; i < 250; i++) {
      clock.set(i / 10); // in order, and none idle yet
      sessions.push(await RawHttpSession.open(hub.url, hub.token, `abandoned-${i}`));
    }
    off();
    // The default cap: the 50 least recently used went, oldest first.
    expect(capped.map((e) => e.client)).toEqual(sessions.slice(0, 50).map((_, i) => `abandoned-${i}`));
    const full = await statusSessions(hub);
    expect(full.ids).toEqual(
      sessions
        .slice(50)
        .map((s) => s.id)
        .sort(),
    );

    const last = sessions[249].id;
    const allIdle = hub.waitFor((e) => e.type === 'session.reaped' && e.session === last, 'last abandoned session reaped');
    clock.set(10_000);
    expect(await allIdle).toMatchObject({ reason: 'idle', level: 'info', idleMs: 10_000 - 25 });
    const empty = await statusSessions(hub);
    expect(empty.ids).toEqual([]);
    expect(empty.bytes).toBeLessThan(full.bytes / 50);
    expect(hub.hub.sessions.size).toBe(0);
  });

  it('keeps a session with a request running or a client listening, and closes the abandoned ones', async () => {
    clock.set(20_000);
    const listening = await listeningClient(hub, 'listening');
    clients.push(listening);
    const abandonedClient = await listeningClient(hub, 'abandoned-sdk');
    // Closed without DELETE: what a client that quits leaves behind.
    const abandonedId = sessionIdOf(abandonedClient);
    await abandonedClient.close();
    const busy = await RawHttpSession.open(hub.url, hub.token, 'busy-raw');
    const started = hub.waitFor((e) => e.type === 'call.started' && e.client === 'busy-raw', 'busy call started');
    const hanging = busy.post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'fx__hang', arguments: {} } });
    await started;
    const idle = await RawHttpSession.open(hub.url, hub.token, 'idle-raw');

    const reaped = new Set<string>();
    const both = hub.waitFor((e) => {
      if (e.type === 'session.reaped') reaped.add(e.session);
      return reaped.has(abandonedId) && reaped.has(idle.id);
    }, 'the abandoned sessions reaped');
    clock.set(30_000);
    await both;
    // One sweep looks at every session: had the other two been idle, they would have gone with these.
    expect([...reaped].sort()).toEqual([abandonedId, idle.id].sort());
    expect((await statusSessions(hub)).ids).toEqual([sessionIdOf(listening), busy.id].sort());
    expect((await listening.callTool({ name: 'fx__noop', arguments: {} })).isError).toBeFalsy();

    // The call ends (its client cancels it): from then on the session is idle, and goes in its turn.
    const busyGone = hub.waitFor((e) => e.type === 'session.reaped' && e.session === busy.id, 'busy session reaped once idle');
    const cancelled = hub.waitFor((e) => e.type === 'call.finished' && e.client === 'busy-raw', 'busy call finished');
    await (await busy.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } })).text();
    await (await hanging).text();
    expect(await cancelled).toMatchObject({ action: 'cancelled' });
    clock.set(40_000);
    expect(await busyGone).toMatchObject({ reason: 'idle', client: 'busy-raw' });
    expect((await statusSessions(hub)).ids).toEqual([sessionIdOf(listening)]);
  });
});
