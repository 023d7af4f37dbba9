/**
 * Resource subscriptions held per session, through the real hub and its HTTP endpoint with a stdio
 * server that records what it is subscribed to: the upstream is subscribed while at least one session
 * holds a URI, however often each subscribed, and no longer once the last one leaves; a refused
 * subscribe counts for nobody; a restarted server is subscribed again; a session that closes while its
 * subscribe is under way is subscribed to nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';
import { RawHttpSession } from '../support/raw-http-session.js';

const SUB = fixture('subscription-server.mjs');
let hub: TestHub;
/** A client that subscribes to nothing, to read the servers' state. */
let observer: Client;

beforeAll(async () => {
  hub = await startTestHub({ mcpServers: { sub: nodeServer(SUB, ['sub']), gate: nodeServer(SUB, ['gate', '--gated']) } });
  await Promise.all(['sub', 'gate'].map((id) => hub.waitForStatus(id, 'ready')));
  observer = await hub.connect({ capabilities: {} }, 'observer');
});
afterAll(async () => hub?.stop());

/** What the server `id` is subscribed to now. */
async function subscribed(id: string): Promise<string[]> {
  return (await serverState(id)).subs;
}

/** What the server `id` is subscribed to now, and every subscribe and unsubscribe it took. */
async function serverState(id: string): Promise<{ subs: string[]; log: string[] }> {
  const r = await observer.callTool({ name: `${id}__state`, arguments: {} });
  return JSON.parse((r.content as { text: string }[])[0].text) as { subs: string[]; log: string[] };
}

/** The next resources/updated `client` gets. */
const nextUpdate = (client: Client) =>
  new Promise<string>((resolve) => client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => resolve(n.params.uri)));

describe('resource subscriptions across sessions', () => {
  it('an unsubscribe from a session that never subscribed leaves the subscription of another', async () => {
    const holder = await hub.connect({ capabilities: {} }, 'holder');
    const stranger = await hub.connect({ capabilities: {} }, 'stranger');
    await holder.subscribeResource({ uri: 'mem://sub/a' });
    await stranger.unsubscribeResource({ uri: 'mem://sub/a' });
    expect(await subscribed('sub')).toEqual(['mem://sub/a']);
    const update = nextUpdate(holder);
    await observer.callTool({ name: 'sub__notify', arguments: {} });
    expect(await update).toBe('mem://sub/a');
    await holder.unsubscribeResource({ uri: 'mem://sub/a' });
    expect(await subscribed('sub')).toEqual([]);
  });

  it('a session that subscribed twice and ends its session leaves nothing subscribed', async () => {
    const twice = await hub.connect({ capabilities: {} }, 'twice');
    await twice.subscribeResource({ uri: 'shared://x' });
    await twice.subscribeResource({ uri: 'shared://x' });
    expect(await subscribed('sub')).toEqual(['shared://x']);
    const closed = hub.waitFor((e) => e.type === 'session.closed' && e.client === 'twice');
    await (twice.transport as StreamableHTTPClientTransport).terminateSession();
    await closed;
    expect(await subscribed('sub')).toEqual([]);
  });

  it('is sent again to a restarted server', async () => {
    const holder = await hub.connect({ capabilities: {} }, 'through-restart');
    await holder.subscribeResource({ uri: 'mem://sub/a' });
    const ready = hub.waitFor((e) => e.type === 'upstream.status' && e.server === 'sub' && e.status === 'ready');
    expect((await hub.api('upstreams.restart', { id: 'sub' })).ok).toBe(true);
    await ready;
    expect(await subscribed('sub')).toEqual(['mem://sub/a']);
    const update = nextUpdate(holder);
    await observer.callTool({ name: 'sub__notify', arguments: {} });
    expect(await update).toBe('mem://sub/a');
    await holder.unsubscribeResource({ uri: 'mem://sub/a' });
  });

  it('a refused subscribe counts for nobody: the next one reaches the server', async () => {
    const client = await hub.connect({ capabilities: {} }, 'early');
    await expect(client.subscribeResource({ uri: 'mem://late/a' })).rejects.toThrow(/Resource not found/);
    const ready = hub.waitFor((e) => e.type === 'upstream.status' && e.server === 'late' && e.status === 'ready');
    expect((await hub.api('upstreams.add', { id: 'late', config: { type: 'stdio', ...nodeServer(SUB, ['late']) } })).ok).toBe(true);
    await ready;
    await client.subscribeResource({ uri: 'mem://late/a' });
    expect(await subscribed('late')).toEqual(['mem://late/a']);
  });
});

describe('a session that closes while its subscribe is under way', () => {
  /** Answers once a subscribe to `uri` waits at the gated server. */
  const held = (uri: string) => observer.callTool({ name: 'gate__held', arguments: { uri } });
  const release = (uri: string) => observer.callTool({ name: 'gate__release', arguments: { uri } });

  /** A raw session whose subscribe to `uri` the hub has taken (the answer's headers come after that). */
  async function subscribing(name: string, uri: string): Promise<{ session: RawHttpSession; answer: Response }> {
    const session = await RawHttpSession.open(hub.url, hub.token, name);
    const answer = await session.post({ jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri } });
    return { session, answer };
  }

  async function close(name: string, { session, answer }: { session: RawHttpSession; answer: Response }): Promise<void> {
    const closed = hub.waitFor((e) => e.type === 'session.closed' && e.client === name);
    await session.close();
    await closed;
    await answer.body?.cancel();
  }

  it('leaves nothing subscribed when it closes while the server takes the subscribe', async () => {
    const uri = 'mem://gate/gated/1';
    const leaver = await subscribing('leaver-at-server', uri);
    await held(uri);
    await close('leaver-at-server', leaver);
    await release(uri);
    // Operations on one URI run in turn: this unsubscribe (of a session that holds nothing) runs after it.
    await observer.unsubscribeResource({ uri });
    expect(await serverState('gate')).toMatchObject({ subs: [], log: [`sub ${uri}`, `unsub ${uri}`] });
  });

  it("is not counted when it closes while its subscribe waits behind another session's", async () => {
    const uri = 'mem://gate/gated/2';
    const first = await hub.connect({ capabilities: {} }, 'first-subscriber');
    const firstSubscribed = first.subscribeResource({ uri });
    await held(uri);
    const leaver = await subscribing('leaver-queued', uri);
    await close('leaver-queued', leaver);
    await release(uri);
    await firstSubscribed;
    await first.unsubscribeResource({ uri });
    expect(await subscribed('gate')).toEqual([]);
  });
});
