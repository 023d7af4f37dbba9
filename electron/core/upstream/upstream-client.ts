/**
 * The SDK Client as the hub uses it for an upstream: connected through a DirectToolCalls transport
 * (direct-tool-calls.ts), its plain tools/call requests skip the SDK's request machinery (issue 6, the
 * bridge's latency goal). Anything the direct path does not cover (progress callbacks, tasks, related
 * requests) goes through the SDK as before.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { AnySchema, SchemaOutput } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { CallToolResultSchema, ErrorCode, McpError, type CallToolRequest, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ConnectTimeoutError } from './connect-error.js';
import { DirectToolCalls, type DirectCall } from './direct-tool-calls.js';

/** Requests that do something for a client (as opposed to lists, pings and subscriptions). */
const CALL_METHODS = new Set(['tools/call', 'resources/read', 'prompts/get', 'completion/complete']);

/** Whether a request's error is the server's own answer (it is there), not a closed connection or a timeout. */
export function answeredByServer(error: unknown): boolean {
  return error instanceof McpError && error.code !== ErrorCode.ConnectionClosed && error.code !== ErrorCode.RequestTimeout;
}

export class UpstreamClient extends Client {
  #answered = 0;
  #initializeSent = false;
  /** Counts a call the server answered, with a result or an error of its own (not a closed connection or a timeout). */
  readonly #onAnswer = [
    () => void this.#answered++,
    (error: unknown) => {
      if (answeredByServer(error)) this.#answered++;
    },
  ] as const;

  /** How many calls (tools/call, resources/read, prompts/get, completion/complete) the server answered: it was serving, not only started. */
  get callsAnswered(): number {
    return this.#answered;
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
    const call = CALL_METHODS.has(request.method);
    if (request.method === 'initialize') this.#initializeSent = true;
    const direct = this.transport;
    const answer =
      direct instanceof DirectToolCalls && !direct.closed && request.method === 'tools/call' && DirectToolCalls.covers(request, options)
        ? direct.request(request as { method: string; params?: Record<string, unknown> }, resultSchema, options)
        : super.request(request, resultSchema, options);
    if (call) answer.then(...this.#onAnswer);
    return answer;
  }

  /**
   * Sends a tools/call now (direct when it can go direct) with no timeout of its own: the caller bounds
   * the wait and withdraws the call with `cancel`. Costs no AbortSignal on the direct path.
   */
  startToolCall(params: CallToolRequest['params'], timeoutCeilingMs: number): DirectCall<CallToolResult> {
    const request = { method: 'tools/call' as const, params };
    const direct = this.transport;
    if (direct instanceof DirectToolCalls && !direct.closed && DirectToolCalls.covers(request, undefined)) {
      const call = direct.call(request, CallToolResultSchema);
      call.result.then(...this.#onAnswer);
      return call;
    }
    const abort = new AbortController();
    const result = super.request(request, CallToolResultSchema, { signal: abort.signal, timeout: timeoutCeilingMs }) as Promise<CallToolResult>;
    result.then(...this.#onAnswer);
    return { result, cancel: (reason) => abort.abort(reason) };
  }
}
