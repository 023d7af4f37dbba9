/**
 * tools/call on a bridge or stdio session without the SDK Server's per-request work (issue 6): the SDK
 * validates every request twice and every result once with zod, and makes an AbortController and a
 * dozen closures per request, which together cost more than the rest of a trivial call's relay. Here a
 * plain tools/call is answered by hand: the same relay pipeline runs (policies, cache, PII, shaping,
 * events, ledger, timeout), with an `extra` that behaves like the SDK's, and the answer or error is
 * written exactly as the SDK would write it. Anything unusual (a progress token, a task, unknown fields,
 * a session not yet initialized) is left to the SDK Server as before.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  McpError,
  RELATED_TASK_META_KEY,
  type CallToolRequest,
  type CallToolResult,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { DownstreamExtra, DownstreamSession } from './session.js';

/** What the fast path needs of the relay. */
export interface FastCallRouter {
  callTool(session: DownstreamSession, params: CallToolRequest['params'], extra: DownstreamExtra): Promise<CallToolResult>;
}

type Params = CallToolRequest['params'];

/**
 * Puts the fast path in front of the SDK on a connected session's transport: tools/call requests it
 * covers, and cancellations of them, never reach the SDK; everything else does, unchanged.
 */
export function serveToolCallsDirectly(session: DownstreamSession, transport: Transport, router: FastCallRouter): void {
  const inflight = new Map<RequestId, AbortController>();
  const sdkMessage = transport.onmessage;
  const sdkClose = transport.onclose;

  const send = (message: JSONRPCMessage) => transport.send(message).catch(() => undefined);

  const call = (id: RequestId, params: Params) => {
    const controller = new AbortController();
    const signal = controller.signal;
    inflight.set(id, controller);
    const extra = {
      signal,
      requestId: id,
      sessionId: transport.sessionId,
      _meta: params._meta,
      // As the SDK's: nothing is sent for a cancelled request, and what is sent is related to it.
      sendNotification: async (notification: Parameters<DownstreamExtra['sendNotification']>[0]) => {
        if (!signal.aborted) await session.server.notification(notification, { relatedRequestId: id });
      },
      sendRequest: async (request: Parameters<DownstreamExtra['sendRequest']>[0], schema: Parameters<DownstreamExtra['sendRequest']>[1], options?: Parameters<DownstreamExtra['sendRequest']>[2]) => {
        if (signal.aborted) throw new McpError(ErrorCode.ConnectionClosed, 'Request was cancelled');
        return session.server.request(request, schema, { ...options, relatedRequestId: id });
      },
    } as unknown as DownstreamExtra;
    session.track(id, () => router.callTool(session, params, extra)).then(
      (result) => {
        if (!signal.aborted) void send({ result, jsonrpc: '2.0', id } as JSONRPCMessage);
      },
      (error: { code?: unknown; message?: string; data?: unknown }) => {
        if (signal.aborted) return;
        void send({
          jsonrpc: '2.0',
          id,
          error: {
            code: Number.isSafeInteger(error?.code) ? (error.code as number) : ErrorCode.InternalError,
            message: error?.message ?? 'Internal error',
            ...(error?.data !== undefined ? { data: error.data } : {}),
          },
        });
      },
    ).finally(() => {
      if (inflight.get(id) === controller) inflight.delete(id);
    });
  };

  transport.onmessage = (message, extra) => {
    const m = message as { id?: unknown; method?: unknown; params?: unknown };
    if (m.method === 'tools/call' && m.id !== undefined) {
      const id = m.id as RequestId;
      if (!session.closed && session.initialized && !inflight.has(id) && isPlainCall(m.params)) {
        call(id, m.params);
        return;
      }
    } else if (m.method === 'notifications/cancelled' && inflight.size > 0) {
      const p = m.params as { requestId?: RequestId; reason?: unknown } | undefined;
      const controller = p?.requestId !== undefined ? inflight.get(p.requestId) : undefined;
      if (controller) {
        controller.abort(p!.reason);
        return;
      }
    }
    sdkMessage?.call(transport, message, extra);
  };

  transport.onclose = () => {
    // As the SDK does for its own handlers: a closed session stops its calls (upstream cancellations follow).
    for (const controller of inflight.values()) controller.abort();
    inflight.clear();
    sdkClose?.call(transport);
  };
}

/**
 * `{name, arguments?, _meta?}` with a string name, an object of arguments and no progress token or
 * related task: what CallToolRequestSchema passes unchanged and the pipeline handles without a stream.
 */
function isPlainCall(params: unknown): params is Params {
  if (!isPlainObject(params)) return false;
  for (const key in params) {
    if (key !== 'name' && key !== 'arguments' && key !== '_meta') return false;
  }
  if (typeof params.name !== 'string') return false;
  if (params.arguments !== undefined && !isPlainObject(params.arguments)) return false;
  const meta = params._meta;
  if (meta === undefined) return true;
  return isPlainObject(meta) && meta.progressToken === undefined && meta[RELATED_TASK_META_KEY] === undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
