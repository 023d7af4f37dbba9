/**
 * The `extra` a request handler gets, built the way the SDK's Protocol builds it (shared/protocol.ts,
 * `_onrequest`), for requests the fast paths answer without the SDK Server (fast-tool-calls.ts).
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { AnySchema, SchemaOutput } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { RequestHandlerExtra, TaskRequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  ErrorCode,
  McpError,
  type MessageExtraInfo,
  type RequestId,
  type RequestMeta,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { CANCELLATION, type RequestCancellation } from './request-cancellation.js';

export type DownstreamExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface RequestExtraInput {
  /** The session's SDK Server: what is sent for the request goes through it, related to the request. */
  server: Server;
  requestId: RequestId;
  /** Cancelled when the client cancels the request or the session closes; `extra.signal` is its signal, made when read. */
  cancellation: RequestCancellation;
  sessionId: string | undefined;
  meta: RequestMeta | undefined;
  /** What the transport knew of the request (HTTP: its headers and URL, and auth when there is any). */
  info: MessageExtraInfo | undefined;
}

/** A request's `extra`: nothing is sent for a cancelled request, and what is sent is related to it. */
export function requestExtra(input: RequestExtraInput): DownstreamExtra {
  const { server, requestId, cancellation } = input;
  const extra: DownstreamExtra & { [CANCELLATION]: RequestCancellation } = {
    get signal() {
      return cancellation.signal;
    },
    [CANCELLATION]: cancellation,
    requestId,
    sessionId: input.sessionId,
    _meta: input.meta,
    authInfo: input.info?.authInfo,
    requestInfo: input.info?.requestInfo,
    closeSSEStream: input.info?.closeSSEStream,
    closeStandaloneSSEStream: input.info?.closeStandaloneSSEStream,
    sendNotification: async (notification: ServerNotification) => {
      if (!cancellation.cancelled) await server.notification(notification, { relatedRequestId: requestId });
    },
    sendRequest: async <U extends AnySchema>(request: ServerRequest, schema: U, options?: TaskRequestOptions): Promise<SchemaOutput<U>> => {
      if (cancellation.cancelled) throw new McpError(ErrorCode.ConnectionClosed, 'Request was cancelled');
      return server.request(request, schema, { ...options, relatedRequestId: requestId });
    },
  };
  return extra;
}
