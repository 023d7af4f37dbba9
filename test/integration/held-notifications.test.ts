/**
 * A list change sent to an HTTP session that has no GET stream open (between initialize and the client's
 * GET, or while it reopens it) reaches the client once the stream opens: the SDK's transport alone drops
 * it, and the client never learns that its tools changed (as the bridge over HTTP did after a hub restart).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATEST_PROTOCOL_VERSION, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';
import { RawHttpSession, sseMessages } from '../support/raw-http-session.js';

let hub: TestHub;
let watcher: Client;

beforeAll(async () => {
  hub = await startTestHub({ version: 1, servers: { fx: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')) } } });
  await hub.waitForStatus('fx', 'ready');
  // A client with its stream open: when it hears of a change, the hub has sent it to every session.
  watcher = await hub.connect({}, 'watcher');
});

afterAll(async () => {
  await hub?.stop();
});

/** Calls the fixture's add_tool on `session` and waits until the hub has told the sessions. */
async function changeTools(session: RawHttpSession, id: number): Promise<void> {
  const told = new Promise<void>((resolve) => watcher.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
  const answer = await session.request({ id, method: 'tools/call', params: { name: 'fx__add_tool', arguments: {} } });
  expect(answer.body.result).toBeDefined();
  await told;
}

/** Opens the session's GET stream and reads its messages. */
async function openStream(session: RawHttpSession, signal: AbortSignal): Promise<AsyncGenerator<Record<string, unknown>>> {
  const res = await fetch(session.url, {
    method: 'GET',
    headers: {
      authorization: `Bearer ${session.token}`,
      accept: 'text/event-stream',
      'mcp-session-id': session.id,
      'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
    },
    signal,
  });
  expect(res.status).toBe(200);
  return sseMessages(res);
}

describe('list changes for an HTTP session without its GET stream', () => {
  it('are sent, once each, when the stream opens', async () => {
    const session = await RawHttpSession.open(hub.url, hub.token);
    await changeTools(session, 1);
    await changeTools(session, 2);
    const stop = new AbortController();
    const stream = await openStream(session, stop.signal);
    const first = await stream.next();
    expect(first.value).toMatchObject({ method: 'notifications/tools/list_changed' });
    // Held once, however often the list changed meanwhile; what follows is live again.
    const ping = session.request({ id: 3, method: 'tools/call', params: { name: 'fx__add_tool', arguments: {} } });
    const next = await stream.next();
    expect(next.value).toMatchObject({ method: 'notifications/tools/list_changed' });
    await ping;
    stop.abort();
    await session.close();
  });
});
