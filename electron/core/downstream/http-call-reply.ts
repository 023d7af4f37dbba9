/**
 * The HTTP response to one POSTed tools/call on the lean path (http-endpoint.ts): plain JSON when only the
 * answer is sent — the spec lets the server answer a POST with JSON or an SSE stream — and an SSE stream,
 * opened with the SDK transport's headers, as soon as something related to the call (a server-to-client
 * request, a notification) has to go out before the answer.
 */
import type { ServerResponse } from 'node:http';
import { DEFAULT_SSE_KEEP_ALIVE_MS } from '@modelcontextprotocol/sdk/server/sseKeepAlive.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { CallReply } from './fast-tool-calls.js';

export class HttpCallReply implements CallReply {
  readonly #res: ServerResponse;
  readonly #sessionId: string;
  #streaming = false;
  #done = false;
  #keepAlive: NodeJS.Timeout | undefined;

  constructor(res: ServerResponse, sessionId: string) {
    this.#res = res;
    this.#sessionId = sessionId;
  }

  stream(message: JSONRPCMessage): boolean {
    if (this.#done || this.#res.destroyed) return false;
    this.#openStream();
    this.#res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    return true;
  }

  answer(message: JSONRPCMessage): void {
    if (this.#done) return;
    this.#done = true;
    const res = this.#res;
    if (res.destroyed) return;
    if (this.#streaming) {
      this.#stopKeepAlive();
      res.end(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
      return;
    }
    // A string body goes out with the head in one write (node joins them), without a Buffer copy first.
    const body = JSON.stringify(message);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'mcp-session-id': this.#sessionId });
    res.end(body);
  }

  /** Ends the response without an answer: an empty event stream, as the SDK transport ends its streams on close. */
  abandon(): void {
    if (this.#done) return;
    this.#done = true;
    if (this.#res.destroyed) return;
    this.#openStream();
    this.#stopKeepAlive();
    this.#res.end();
  }

  #openStream(): void {
    if (this.#streaming) return;
    this.#streaming = true;
    this.#res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'mcp-session-id': this.#sessionId,
    });
    // A server-to-client request may wait on a person (elicitation): keep the stream alive as the SDK does.
    const timer = setInterval(() => this.#res.write(': keepalive\n\n'), DEFAULT_SSE_KEEP_ALIVE_MS);
    timer.unref();
    this.#keepAlive = timer;
    this.#res.once('close', () => this.#stopKeepAlive());
  }

  #stopKeepAlive(): void {
    if (this.#keepAlive) clearInterval(this.#keepAlive);
    this.#keepAlive = undefined;
  }
}
