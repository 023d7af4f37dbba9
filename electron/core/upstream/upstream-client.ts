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
import { DirectToolCalls, type DirectCall } from './direct-tool-calls.js';

export class UpstreamClient extends Client {
  override request<T extends AnySchema>(
    request: Parameters<Client['request']>[0],
    resultSchema: T,
    options?: RequestOptions,
  ): Promise<SchemaOutput<T>> {
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
    const direct = this.transport;
    if (direct instanceof DirectToolCalls && !direct.closed && DirectToolCalls.covers(request, undefined)) {
      return direct.call(request, CallToolResultSchema);
    }
    const abort = new AbortController();
    const result = super.request(request, CallToolResultSchema, { signal: abort.signal, timeout: timeoutCeilingMs }) as Promise<CallToolResult>;
    return { result, cancel: (reason) => abort.abort(reason) };
  }
}
