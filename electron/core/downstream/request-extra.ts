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

/**
 * A request's `extra`: nothing is sent for a cancelled request, and what is sent is related to it. A
 * class, not an object literal: a literal with a getter (`signal`) is built by V8's slow path, a
 * visible share of a small call; `signal` is read through the prototype the same way.
 */
export function requestExtra(input: RequestExtraInput): DownstreamExtra {
  return new FastRequestExtra(input);
}

class FastRequestExtra implements DownstreamExtra {
  readonly [CANCELLATION]: RequestCancellation;
  readonly requestId: RequestId;
  readonly sessionId: string | undefined;
  readonly _meta: RequestMeta | undefined;
  readonly authInfo: DownstreamExtra['authInfo'];
  readonly requestInfo: DownstreamExtra['requestInfo'];
  readonly closeSSEStream: DownstreamExtra['closeSSEStream'];
  readonly closeStandaloneSSEStream: DownstreamExtra['closeStandaloneSSEStream'];
  readonly sendNotification: DownstreamExtra['sendNotification'];
  readonly sendRequest: DownstreamExtra['sendRequest'];

  constructor(input: RequestExtraInput) {
    const { server, requestId, cancellation, info } = input;
    this[CANCELLATION] = cancellation;
    this.requestId = requestId;
    this.sessionId = input.sessionId;
    this._meta = input.meta;
    this.authInfo = info?.authInfo;
    this.requestInfo = info?.requestInfo;
    this.closeSSEStream = info?.closeSSEStream;
    this.closeStandaloneSSEStream = info?.closeStandaloneSSEStream;
    this.sendNotification = async (notification: ServerNotification) => {
      if (!cancellation.cancelled) await server.notification(notification, { relatedRequestId: requestId });
    };
    this.sendRequest = async <U extends AnySchema>(request: ServerRequest, schema: U, options?: TaskRequestOptions): Promise<SchemaOutput<U>> => {
      if (cancellation.cancelled) throw new McpError(ErrorCode.ConnectionClosed, 'Request was cancelled');
      return server.request(request, schema, { ...options, relatedRequestId: requestId });
    };
  }

  /** The request's AbortSignal, made when first read (request-cancellation.ts). */
  get signal(): AbortSignal {
    return this[CANCELLATION].signal;
  }
}
