/**
 * The SDK Client as the hub uses it for an upstream: connected through a DirectToolCalls transport
 * (direct-tool-calls.ts), its plain tools/call requests skip the SDK's request machinery (issue 6, the
 * bridge's latency goal). Anything the direct path does not cover (progress callbacks, tasks, related
 * requests) goes through the SDK as before.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { AnySchema, SchemaOutput } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { CallToolResultSchema, type CallToolRequest, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ConnectTimeoutError } from './connect-error.js';
import { DirectToolCalls, type DirectCall } from './direct-tool-calls.js';

/** Requests that do something for a client (as opposed to lists, pings and subscriptions). */
const CALL_METHODS = new Set(['tools/call', 'resources/read', 'prompts/get', 'completion/complete']);

export class UpstreamClient extends Client {
  #calls = 0;
  #initializeSent = false;

  /** How many calls (tools/call, resources/read, prompts/get, completion/complete) were sent so far. */
  get callsSent(): number {
    return this.#calls;
  }

  /**
   * `connect`, bounded as a whole by `timeoutMs`: the SDK's own timeout covers initialize only, not the
   * transport's start (an SSE stream that never sends its endpoint event waits forever). Rejects with a
   * ConnectTimeoutError naming the step that did not finish; the caller closes the client.
   */
  async connectWithin(transport: Transport, timeoutMs: number): Promise<void> {
    const connecting = this.connect(transport, { timeout: timeoutMs });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ConnectTimeoutError(this.#initializeSent ? 'initialize' : 'start', timeoutMs)), timeoutMs);
    });
    try {
      await Promise.race([connecting, late]);
    } finally {
      clearTimeout(timer);
      connecting.catch(() => undefined); // ends with the close that follows a timeout
    }
  }

  override request<T extends AnySchema>(
    request: Parameters<Client['request']>[0],
    resultSchema: T,
    options?: RequestOptions,
  ): Promise<SchemaOutput<T>> {
    if (CALL_METHODS.has(request.method)) this.#calls++;
    else if (request.method === 'initialize') this.#initializeSent = true;
    const direct = this.transport;
    if (direct instanceof DirectToolCalls && !direct.closed && request.method === 'tools/call' && DirectToolCalls.covers(request, options)) {
      return direct.request(request as { method: string; params?: Record<string, unknown> }, resultSchema, options);
    }
    return super.request(request, resultSchema, options);
  }

  /**
   * Sends a tools/call now (direct when it can go direct) with no timeout of its own: the caller bounds
   * the wait and withdraws the call with `cancel`. Costs no AbortSignal on the direct path.
   */
  startToolCall(params: CallToolRequest['params'], timeoutCeilingMs: number): DirectCall<CallToolResult> {
    const request = { method: 'tools/call' as const, params };
    this.#calls++;
    const direct = this.transport;
    if (direct instanceof DirectToolCalls && !direct.closed && DirectToolCalls.covers(request, undefined)) {
      return direct.call(request, CallToolResultSchema);
    }
    const abort = new AbortController();
    const result = super.request(request, CallToolResultSchema, { signal: abort.signal, timeout: timeoutCeilingMs }) as Promise<CallToolResult>;
    return { result, cancel: (reason) => abort.abort(reason) };
  }
}
