/**
 * The fast path for tools/call on bridge and stdio sessions (fast-tool-calls.ts) and the direct upstream
 * requests under it (UpstreamClient): the same answers, errors, events and ledger records as a session
 * served by the SDK (HTTP here), and the timeout, cancellation, spill and fallback behaviours kept.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { HubEvent } from '../../shared/events.js';
import type { SavingsUpdate } from '../../shared/ledger.js';
import type { DownstreamSession } from '../../electron/core/downstream/session.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
let http: Client;
let bridge: Client;
let bridgeSession: DownstreamSession;

/** A client served over an in-process transport as a 'bridge' session (the fast path is on for it). */
async function bridgeClient(name: string): Promise<{ client: Client; session: DownstreamSession }> {
  const [clientSide, hubSide] = InMemoryTransport.createLinkedPair();
  const session = await hub.hub.connectSession(hubSide, 'bridge');
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(clientSide);
  return { client, session };
}

const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;

beforeAll(async () => {
  hub = await startTestHub({
    version: 1,
    servers: {
      fx: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')) },
      slow: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')), timeoutMs: 1000 },
      crashy: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')) },
    },
  });
  await Promise.all(['fx', 'slow', 'crashy'].map((id) => hub.waitForStatus(id, 'ready')));
  http = await hub.connect(undefined, 'http-client');
  ({ client: bridge, session: bridgeSession } = await bridgeClient('bridge-client'));
});

afterAll(async () => {
  await bridge?.close();
  await hub?.stop();
});

/** The call.started and call.finished events of one call, found by the client that made it. */
function callEvents(client: string, tool: string): Promise<[HubEvent, HubEvent]> {
  const started = hub.waitFor((e) => e.type === 'call.started' && e.client === client && e.tool === tool, `${client} ${tool} started`);
  const finished = hub.waitFor((e) => e.type === 'call.finished' && e.client === client && e.tool === tool, `${client} ${tool} finished`);
  return Promise.all([started, finished]);
}

type CallEntry = Extract<SavingsUpdate['record'], { kind: 'call' }>;

function ledgerRecord(client: string, tool: string): Promise<CallEntry> {
  return new Promise((resolve) => {
    const off = hub.hub.ledger.subscribe((u) => {
      if (u.record.kind === 'call' && u.record.client === client && u.record.tool === tool) {
        off();
        resolve(u.record);
      }
    });
  });
}

/** What does not depend on who called or when. */
function comparable(e: HubEvent): Record<string, unknown> {
  const { seq: _s, time: _t, callId: _c, session: _se, client: _cl, durationMs: _d, ...rest } = e as HubEvent & Record<string, unknown>;
  return rest;
}

describe('tools/call on a bridge session (fast path)', () => {
  it('answers, logs and records a call exactly like a session served by the SDK', async () => {
    const args = { text: 'hello', account: 'a-1' };
    const viaHttpEvents = callEvents('http-client', 'echo_args');
    const viaHttpLedger = ledgerRecord('http-client', 'echo_args');
    const viaHttp = await http.callTool({ name: 'fx__echo_args', arguments: args });
    const viaBridgeEvents = callEvents('bridge-client', 'echo_args');
    const viaBridgeLedger = ledgerRecord('bridge-client', 'echo_args');
    const viaBridge = await bridge.callTool({ name: 'fx__echo_args', arguments: args });
    expect(viaBridge).toEqual(viaHttp);
    expect(JSON.parse(text(viaBridge))).toEqual(args);
    const [hs, hf] = await viaHttpEvents;
    const [bs, bf] = await viaBridgeEvents;
    expect(comparable(bs)).toEqual(comparable(hs));
    expect(comparable(bf)).toEqual(comparable(hf));
    expect(bf).toMatchObject({ action: 'pass', isError: false, session: bridgeSession.id });
    const { time: _a, latencyMs: _b, client: _c, ...httpRecord } = await viaHttpLedger;
    const { time: _d, latencyMs: _e, client: _f, ...bridgeRecord } = await viaBridgeLedger;
    expect(bridgeRecord).toEqual(httpRecord);
    expect(bridgeRecord.tokensUpstream).toBeGreaterThan(0);
  });

  it('keeps in-flight calls on the session while they run (for routing upstream requests back)', async () => {
    const result = await bridge.callTool({ name: 'fx__noop', arguments: {} });
    expect(text(result)).toBe('ok');
    expect(bridgeSession.inflight.size).toBe(0);
    expect(Date.parse(bridgeSession.lastActivity)).toBeGreaterThan(Date.parse(bridgeSession.openedAt) - 1);
  });

  it('relays a protocol error as the same JSON-RPC error an SDK-served session gets', async () => {
    const fail = (c: Client) =>
      c.callTool({ name: 'fx__no_such_tool', arguments: {} }).then(
        () => undefined,
        (e: unknown) => e,
      );
    const viaHttp = await fail(http);
    const viaBridge = await fail(bridge);
    expect(viaBridge).toBeInstanceOf(McpError);
    expect((viaBridge as McpError).code).toBe((viaHttp as McpError).code);
    expect((viaBridge as McpError).message).toBe((viaHttp as McpError).message);
  });

  it('spills a result over the threshold, as the normal shaping does', async () => {
    const r = await bridge.callTool({ name: 'fx__big', arguments: { bytes: 200_000 } });
    const link = (r.content as { type: string; uri?: string }[]).find((b) => b.type === 'resource_link');
    expect(link?.uri).toMatch(/^spillway:\/\/spill\//);
    expect(JSON.stringify(r).length).toBeLessThan(50_000);
  });

  it('returns structured content validated as the SDK would', async () => {
    const viaBridge = await bridge.callTool({ name: 'fx__add', arguments: { a: 2, b: 3 } });
    const viaHttp = await http.callTool({ name: 'fx__add', arguments: { a: 2, b: 3 } });
    expect(viaBridge).toEqual(viaHttp);
    expect(viaBridge.structuredContent).toEqual({ sum: 5 });
  });

  it('times out a hanging call with the same isError result', async () => {
    const finished = hub.waitFor((e) => e.type === 'call.finished' && e.client === 'bridge-client' && e.tool === 'hang', 'hang finished');
    const r = await bridge.callTool({ name: 'slow__hang', arguments: {} });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/did not answer "hang" within 1 s \(timeout\)/);
    expect(await finished).toMatchObject({ isError: true, action: 'error' });
    // The server stays usable: the timed-out request was cancelled, not left pending.
    expect(text(await bridge.callTool({ name: 'slow__noop', arguments: {} }))).toBe('ok');
  });

  it('cancels a call the client aborts: no answer is sent, and the session goes on', async () => {
    const abort = new AbortController();
    // An answer to the cancelled request would reach the client as a response to an unknown id.
    const errors: Error[] = [];
    bridge.onerror = (e) => errors.push(e);
    const started = hub.waitFor(
      (e) => e.type === 'call.started' && e.client === 'bridge-client' && e.tool === 'hang' && e.server === 'fx',
      'hang started',
    );
    const pending = bridge.callTool({ name: 'fx__hang', arguments: {} }, CallToolResultSchema, { signal: abort.signal }).then(
      () => 'answered',
      (e: Error) => e.message,
    );
    await started;
    expect(bridgeSession.inflight.size).toBe(1);
    abort.abort();
    // The client gives up at once (its own cancellation); the hub stops the call and sends nothing.
    expect(await pending).toMatch(/AbortError/);
    expect(text(await bridge.callTool({ name: 'fx__noop', arguments: {} }))).toBe('ok');
    expect(bridgeSession.inflight.size).toBe(0);
    expect(errors).toEqual([]);
    bridge.onerror = undefined;
  });

  it('gives an isError result when the upstream crashes mid-call', async () => {
    // Its tools stay listed while it reconnects: its status tells when it is back.
    const down = hub.waitFor((e) => e.type === 'upstream.status' && e.server === 'crashy' && e.status !== 'ready', 'crashy down');
    const back = down.then(() =>
      hub.waitFor((e) => e.type === 'upstream.status' && e.server === 'crashy' && e.status === 'ready', 'crashy ready again'),
    );
    const r = await bridge.callTool({ name: 'crashy__crash', arguments: {} });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/closed the connection during "crash"/);
    await back;
    expect(text(await bridge.callTool({ name: 'crashy__add', arguments: { a: 1, b: 2 } }))).toBe('3');
  });

  it('leaves a call that asks for progress to the SDK, which relays the progress', async () => {
    const progress: number[] = [];
    const r = await bridge.callTool({ name: 'fx__slow', arguments: { steps: 3 } }, CallToolResultSchema, {
      onprogress: (p) => progress.push(p.progress),
    });
    expect(text(r)).toBe('done 3');
    expect(progress).toEqual([1, 2, 3]);
  });

  it('serves several calls in flight at once, each answered with its own result', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => bridge.callTool({ name: 'fx__add', arguments: { a: i, b: 1000 } })));
    expect(results.map((r) => (r.structuredContent as { sum: number }).sum)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1000));
  });

  it('stops the calls of a session that closes, and the hub keeps serving others', async () => {
    const { client, session } = await bridgeClient('closing-client');
    const started = hub.waitFor((e) => e.type === 'call.started' && e.client === 'closing-client', 'closing call started');
    const closed = hub.waitFor((e) => e.type === 'session.closed' && e.session === session.id, 'session closed');
    void client.callTool({ name: 'fx__hang', arguments: {} }).catch(() => undefined);
    await started;
    await client.close();
    await closed;
    expect(text(await bridge.callTool({ name: 'fx__noop', arguments: {} }))).toBe('ok');
  });
});
