/**
 * One MCP session spoken in raw HTTP (fetch), so what is on the wire is what a test checks: no GET stream
 * is opened, nothing is validated on the client's side, and the session is left open unless deleted.
 */
import { request } from 'node:http';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import type { HubLine } from './raw-socket-session.js';

export class RawHttpSession {
  private constructor(
    readonly id: string,
    readonly url: string,
    readonly token: string,
  ) {}

  /** Initializes a session (initialize, then notifications/initialized) as `client`, declaring `capabilities`. */
  static async open(url: string, token: string, client = 'raw-client', capabilities: Record<string, unknown> = {}): Promise<RawHttpSession> {
    const res = await fetch(url, {
      method: 'POST',
      headers: headers(token),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities, clientInfo: { name: client, version: '1' } },
      }),
    });
    await res.text();
    const id = res.headers.get('mcp-session-id');
    if (!res.ok || !id) throw new Error(`initialize answered ${res.status}`);
    const session = new RawHttpSession(id, url, token);
    const done = await session.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await done.text();
    if (done.status !== 202) throw new Error(`notifications/initialized answered ${done.status}`);
    return session;
  }

  post(message: unknown, signal?: AbortSignal): Promise<Response> {
    return fetch(this.url, {
      method: 'POST',
      headers: { ...headers(this.token), 'mcp-session-id': this.id, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION },
      body: JSON.stringify(message),
      signal,
    });
  }

  /** Ends the session (DELETE), as a client that goes away does. */
  async close(): Promise<void> {
    const res = await fetch(this.url, {
      method: 'DELETE',
      headers: { ...headers(this.token), 'mcp-session-id': this.id, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION },
    });
    await res.text();
  }

  /**
   * Posts `body` as the text it is (a test writes exact bytes: too long or too deep for JSON.stringify),
   * with a Content-Length or chunked: the status and the body the hub answered. A 413 may come, and the
   * connection close, before the whole body is sent: a failed send after the answer began is not an error.
   */
  postText(body: string, chunked = false): Promise<{ status?: number; body: string }> {
    const u = new URL(this.url);
    const length = chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(Buffer.byteLength(body)) };
    const sent = { ...headers(this.token), 'mcp-session-id': this.id, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION, ...length };
    return new Promise((resolve, reject) => {
      let answered = false;
      const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: sent }, (res) => {
        answered = true;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode, body: text }));
        // A hub that closes the connection after its answer (a 413) may end the response without 'end'.
        res.on('close', () => resolve({ status: res.statusCode, body: text }));
      });
      req.on('error', (error) => {
        if (!answered) reject(error);
      });
      req.end(body);
    });
  }

  /** Posts one request written as JSON text and reads its one answer, sent as JSON or as the last event of an SSE stream. */
  async requestText(body: string): Promise<HubLine> {
    const { body: text } = await this.postText(body);
    const data = text.startsWith('{')
      ? text
      : text
          .split('\n')
          .findLast((line) => line.startsWith('data: '))!
          .slice('data: '.length);
    return JSON.parse(data) as HubLine;
  }

  /** Posts one request and reads its answer, sent as JSON or as the last message of an SSE stream. */
  async request(message: { id: number | string } & Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await this.post({ jsonrpc: '2.0', ...message });
    const text = await res.text();
    if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) return { status: res.status, body: JSON.parse(text) };
    const data = text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
    const answer = data.find((m) => m.id === message.id);
    if (!answer) throw new Error(`no answer to ${String(message.id)} in the stream: ${text}`);
    return { status: res.status, body: answer };
  }
}

function headers(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
}

/** The JSON-RPC messages of an SSE body, read event by event as they arrive. */
export async function* sseMessages(res: Response): AsyncGenerator<Record<string, unknown>> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const data = buffer
        .slice(0, end)
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n');
      buffer = buffer.slice(end + 2);
      if (data) yield JSON.parse(data) as Record<string, unknown>;
    }
  }
}
