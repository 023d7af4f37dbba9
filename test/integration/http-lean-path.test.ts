/**
 * The HTTP endpoint's lean path (issue 12): a POSTed plain tools/call on an initialized session is answered
 * as JSON with the headers the SDK sends, opens an SSE stream only when something related to the call
 * goes out first (a server-to-client request), and ends without an answer when cancelled or when the
 * session is deleted. Calls with a progress token stay with the SDK transport. A session opened with the
 * bridge's header is a bridge session. Raw HTTP, so what is on the wire is what is checked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';
import { sseMessages } from '../support/raw-http-session.js';

let hub: TestHub;

beforeAll(async () => {
  hub = await startTestHub({ version: 1, servers: { fx: { type: 'stdio', ...nodeServer(fixture('fixture-server.mjs')) } } });
  await hub.waitForStatus('fx', 'ready');
});

afterAll(async () => {
  await hub?.stop();
});

/** One MCP session spoken in raw HTTP. */
class RawSession {
  #nextId = 1;
  private constructor(
    readonly id: string,
    readonly url: string,
    readonly token: string,
  ) {}

  static async open(headers: Record<string, string> = {}, capabilities: Record<string, unknown> = {}): Promise<RawSession> {
    const res = await fetch(hub.url, {
      method: 'POST',
      headers: { ...baseHeaders(hub.token), ...headers },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities, clientInfo: { name: 'raw-client', version: '1' } },
      }),
    });
    await res.text();
    const session = new RawSession(res.headers.get('mcp-session-id')!, hub.url, hub.token);
    const done = await session.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(done.status).toBe(202);
    return session;
  }

  post(message: Record<string, unknown>): Promise<Response> {
    return fetch(this.url, {
      method: 'POST',
      headers: { ...baseHeaders(this.token), 'mcp-session-id': this.id, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION },
      body: JSON.stringify(message),
    });
  }

  call(name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>): { id: number; response: Promise<Response> } {
    const id = this.#nextId++;
    const params = { name, arguments: args, ...(meta ? { _meta: meta } : {}) };
    return { id, response: this.post({ jsonrpc: '2.0', id, method: 'tools/call', params }) };
  }

  delete(): Promise<Response> {
    return fetch(this.url, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${this.token}`, 'mcp-session-id': this.id, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION },
    });
  }
}

function baseHeaders(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
}

describe('tools/call over HTTP (lean path)', () => {
  it('answers a plain call as JSON, with the session id header', async () => {
    const session = await RawSession.open();
    const { id, response } = session.call('fx__echo_args', { text: 'hi', account: 'a-1' });
    const res = await response;
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('mcp-session-id')).toBe(session.id);
    const body = (await res.json()) as { jsonrpc: string; id: number; result: { content: { text: string }[] } };
    expect(body).toMatchObject({ jsonrpc: '2.0', id });
    expect(JSON.parse(body.result.content[0].text)).toEqual({ text: 'hi', account: 'a-1' });
    await session.delete();
  });

  it('answers an unknown tool with the same JSON-RPC error as before', async () => {
    const session = await RawSession.open();
    const res = await session.call('fx__no_such_tool').response;
    expect(res.headers.get('content-type')).toBe('application/json');
    const body = (await res.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32602);
    expect(body.error.message).toMatch(/no_such_tool/);
    await session.delete();
  });

  it('leaves a call with a progress token to the SDK transport, which streams its progress', async () => {
    const session = await RawSession.open();
    const { id, response } = session.call('fx__slow', { steps: 2 }, { progressToken: 'p-1' });
    const res = await response;
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const seen: Record<string, unknown>[] = [];
    for await (const message of sseMessages(res)) {
      seen.push(message);
      if (message.id === id) break;
    }
    expect(seen.filter((m) => m.method === 'notifications/progress')).toHaveLength(2);
    expect(seen.at(-1)).toMatchObject({ id, result: { content: [{ type: 'text', text: 'done 2' }] } });
    await session.delete();
  });

  it('opens a stream when the call asks the client something, and takes the answer from another POST', async () => {
    const session = await RawSession.open({}, { sampling: {} });
    const { id, response } = session.call('fx__sample', { prompt: 'hello' });
    const res = await response;
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.headers.get('mcp-session-id')).toBe(session.id);
    const stream = sseMessages(res);
    const request = (await stream.next()).value as { id: number; method: string };
    expect(request.method).toBe('sampling/createMessage');
    const answered = await session.post({
      jsonrpc: '2.0',
      id: request.id,
      result: { role: 'assistant', content: { type: 'text', text: 'sampled text' }, model: 'test' },
    });
    expect(answered.status).toBe(202);
    const result = (await stream.next()).value;
    expect(result).toMatchObject({ id, result: { content: [{ type: 'text', text: 'sampled: sampled text' }] } });
    expect((await stream.next()).done).toBe(true);
    await session.delete();
  });

  it('ends a cancelled call without an answer, and the session goes on', async () => {
    const session = await RawSession.open();
    const started = hub.waitFor((e) => e.type === 'call.started' && e.tool === 'hang', 'hang started');
    const { id, response } = session.call('fx__hang');
    await started;
    const cancelled = await session.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'enough' } });
    expect(cancelled.status).toBe(202);
    const res = await response;
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(await res.text()).toBe('');
    const next = await session.call('fx__noop').response;
    expect(((await next.json()) as { result: { content: { text: string }[] } }).result.content[0].text).toBe('ok');
    await session.delete();
  });

  it('ends a call in flight when its session is deleted', async () => {
    const session = await RawSession.open();
    const started = hub.waitFor((e) => e.type === 'call.started' && e.tool === 'hang', 'hang started');
    const { response } = session.call('fx__hang');
    await started;
    expect((await session.delete()).status).toBe(200);
    expect(await (await response).text()).toBe('');
    expect((await session.call('fx__noop').response).status).toBe(404);
  });

  it('leaves a request the SDK would refuse to the SDK (406 without text/event-stream in Accept)', async () => {
    const session = await RawSession.open();
    const res = await fetch(session.url, {
      method: 'POST',
      headers: { ...baseHeaders(session.token), accept: 'application/json', 'mcp-session-id': session.id },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'fx__noop', arguments: {} } }),
    });
    expect(res.status).toBe(406);
    await session.delete();
  });
});

describe('session kind from the transport', () => {
  it("makes a session opened with the bridge's header a bridge session, and any other an HTTP one", async () => {
    const bridge = await RawSession.open({ 'x-spillway-bridge': '1' });
    const plain = await RawSession.open();
    const sessions = await hub.api<{ id: string; transport: string }[]>('sessions.list');
    const kind = (id: string) => sessions.value?.find((s) => s.id === id)?.transport;
    expect(kind(bridge.id)).toBe('bridge');
    expect(kind(plain.id)).toBe('http');
    await Promise.all([bridge.delete(), plain.delete()]);
  });
});
