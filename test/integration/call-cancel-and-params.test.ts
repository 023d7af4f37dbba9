/**
 * Issue 13, item 13: a cancelled call is recorded as cancelled (`call.finished` with action 'cancelled' and
 * a ledger record of zero tokens the savings count sanely), whether the client cancels it or closes its
 * session; and a tools/call with params of the wrong types is answered -32602 with one readable sentence,
 * not -32603 with zod's dump. Both entrances (HTTP, and stdio or bridge sessions) and both paths (the fast
 * path for plain calls, the SDK Server for the rest), with real SDK clients and raw HTTP posts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { HubEvent } from '../../shared/events.js';
import type { SavingsUpdate } from '../../shared/ledger.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';
import { RawHttpSession } from '../support/raw-http-session.js';

let hub: TestHub;
let http: Client;
let bridge: Client;
let stdio: Client;

beforeAll(async () => {
  hub = await startTestHub({ version: 1, servers: { fx: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')) } } });
  await hub.waitForStatus('fx', 'ready');
  http = await hub.connect(undefined, 'http-client');
  // Served in-process as a bridge and a stdio session (the fast path covers both).
  bridge = await hub.connectInProcess('bridge-client', 'bridge');
  stdio = await hub.connectInProcess('stdio-client', 'stdio');
});

afterAll(async () => {
  await hub?.stop();
});

type CallEntry = Extract<SavingsUpdate['record'], { kind: 'call' }>;

/** The ledger record of the next call of `tool` by `client`. */
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

/** Calls fx__hang as `name`, cancels it once it runs upstream, and returns its finished event and ledger record. */
async function cancelHang(client: Client, name: string, withProgress: boolean): Promise<{ finished: HubEvent; record: CallEntry; error: string }> {
  const started = hub.waitFor((e) => e.type === 'call.started' && e.client === name && e.tool === 'hang', `${name} hang started`);
  const finished = hub.waitFor((e) => e.type === 'call.finished' && e.client === name && e.tool === 'hang', `${name} hang finished`);
  const record = ledgerRecord(name, 'hang');
  const abort = new AbortController();
  const pending = client
    .callTool({ name: 'fx__hang', arguments: {} }, CallToolResultSchema, {
      signal: abort.signal,
      ...(withProgress ? { onprogress: () => undefined } : {}),
    })
    .then(
      () => 'answered',
      (e: Error) => e.message,
    );
  await started;
  abort.abort('enough');
  return { finished: await finished, record: await record, error: await pending };
}

describe('a cancelled call', () => {
  it('is finished as cancelled, and recorded with zero tokens, on every path', async () => {
    const before = hub.hub.ledger.report().allTime;
    const runs = [
      { client: http, name: 'http-client', withProgress: false }, // the HTTP lean path
      { client: http, name: 'http-client', withProgress: true }, // a progress token: the SDK Server
      { client: bridge, name: 'bridge-client', withProgress: false }, // the fast path on a bridge session
      { client: stdio, name: 'stdio-client', withProgress: true },
    ];
    for (const run of runs) {
      const { finished, record, error } = await cancelHang(run.client, run.name, run.withProgress);
      expect(error).toMatch(/enough|abort/i);
      expect(finished).toMatchObject({ action: 'cancelled', isError: false, level: 'info', bytesUpstream: 0, bytesDelivered: 0, server: 'fx' });
      expect(finished).not.toHaveProperty('error');
      expect(record).toMatchObject({ action: 'cancelled', server: 'fx', tokensUpstream: 0, tokensDelivered: 0, bytesUpstream: 0, bytesDelivered: 0 });
    }
    const after = hub.hub.ledger.report().allTime;
    expect(after.calls - before.calls).toBe(runs.length);
    expect(after.byAction.cancelled - before.byAction.cancelled).toBe(runs.length);
    expect(after.tokensSaved).toBe(before.tokensSaved);
    expect(after.tokensUpstream).toBe(before.tokensUpstream);
    // Every session goes on.
    for (const client of [http, bridge, stdio]) expect((await client.callTool({ name: 'fx__noop', arguments: {} })).isError).toBeFalsy();
  });

  it('is finished as cancelled when its session closes under it (HTTP DELETE)', async () => {
    const client = await hub.connect(undefined, 'leaving-client');
    const started = hub.waitFor((e) => e.type === 'call.started' && e.client === 'leaving-client', 'leaving call started');
    const finished = hub.waitFor((e) => e.type === 'call.finished' && e.client === 'leaving-client', 'leaving call finished');
    const record = ledgerRecord('leaving-client', 'hang');
    void client.callTool({ name: 'fx__hang', arguments: {} }).catch(() => undefined);
    await started;
    await (client.transport as StreamableHTTPClientTransport).terminateSession();
    expect(await finished).toMatchObject({ action: 'cancelled', isError: false });
    expect(await record).toMatchObject({ action: 'cancelled', tokensUpstream: 0, tokensDelivered: 0 });
    await client.close();
  });
});

describe('tools/call with params of the wrong types', () => {
  const cases = [
    {
      params: { name: 'fx__add', arguments: 'x' },
      message: /^Invalid params: "arguments" must be an object of the tool's arguments by name, not a string\.$/,
    },
    { params: { name: 5 }, message: /^Invalid params: "name" must be the tool's name as a string, not a number\.$/ },
    { params: { arguments: {} }, message: /^Invalid params: the tool's "name" is missing\.$/ },
    // A progress token sends the call to the SDK Server rather than the fast path: the same answer.
    { params: { name: 'fx__add', arguments: [1, 2], _meta: { progressToken: 7 } }, message: /"arguments" must be an object .* not an array\.$/ },
  ];

  it('answers an SDK client -32602 with one sentence, over HTTP, a bridge and stdio', async () => {
    const calls: HubEvent[] = [];
    const off = hub.hub.events.subscribe((e) => void (e.type === 'call.started' && calls.push(e)));
    for (const client of [http, bridge, stdio]) {
      for (const { params, message } of cases) {
        const error = await client.request({ method: 'tools/call', params } as never, CallToolResultSchema).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(McpError);
        expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
        expect((error as McpError).message.replace(/^MCP error -32602: /, '')).toMatch(message);
      }
      expect((await client.callTool({ name: 'fx__add', arguments: { a: 1, b: 2 } })).isError).toBeFalsy();
    }
    off();
    expect(calls.filter((e) => e.type === 'call.started' && e.tool !== 'add')).toEqual([]);
  });

  it('answers a raw HTTP post -32602 with one sentence', async () => {
    const session = await RawHttpSession.open(hub.url, hub.token, 'raw-client');
    let id = 1;
    for (const { params, message } of cases) {
      const { status, body } = await session.request({ id: id++, method: 'tools/call', params });
      expect(status).toBe(200);
      expect(body).toMatchObject({ jsonrpc: '2.0', error: { code: -32602 } });
      expect((body.error as { message: string }).message).toMatch(message);
    }
    const ok = await session.request({ id, method: 'tools/call', params: { name: 'fx__add', arguments: { a: 2, b: 3 } } });
    expect(ok.body).toMatchObject({ result: { structuredContent: { sum: 5 } } });
  });
});
