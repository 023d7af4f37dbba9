/**
 * tools/call without the SDK Server's per-request work (issue 6): the SDK validates every request twice
 * and every result once with zod, and makes an AbortController and a dozen closures per request, which
 * together cost more than the rest of a trivial call's relay. A plain tools/call is answered by hand here:
 * the same relay pipeline runs (policies, cache, PII, shaping, events, ledger, timeout), with an `extra`
 * built like the SDK's (request-extra.ts), and the answer or error is written exactly as the SDK would
 * write it. Anything unusual (a progress token, a task, unknown fields, a session not yet initialized)
 * is left to the SDK Server as before. Being the first to see every message of a session, it also refuses
 * any request the relay could not take (params too deeply nested, a line over the client limit), drops a
 * notification nested too deeply, and turns a client's answer the relay could not pass on into an error
 * answer of its id, so the request it answers fails.
 *
 * It is a Transport wrapping the session's real one, handed to the SDK Server's `connect` in its place
 * (issue 12): its `start` takes the real transport's callbacks, keeps the calls it covers and their
 * cancellations, and passes everything else on to the SDK. A cancellation of a request the SDK serves is
 * passed on, then that request's response is ended (`endStream`), as is that of a call of ours that came
 * through the transport: a cancelled request is answered with nothing, and the SDK's HTTP transport ends
 * a request's event stream only with the answer.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  RELATED_TASK_META_KEY,
  type CallToolRequest,
  type CallToolResult,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type JSONRPCResultResponse,
  type MessageExtraInfo,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { clientMessageTooLarge } from '../../../shared/limits.js';
import { OversizedMessageError, oversizedRequestId, oversizedResponseId } from '../wire/line-framer.js';
import { answerNestingProblem, callParamsProblem, nestingProblem, notificationNestingProblem, paramsNestingProblem } from './call-params.js';
import { RequestCancellation } from './request-cancellation.js';
import { requestExtra, type DownstreamExtra } from './request-extra.js';

type Params = CallToolRequest['params'];

/** What the fast path needs of its session (a DownstreamSession). */
export interface FastCallSession {
  readonly server: Server;
  readonly closed: boolean;
  readonly initialized: boolean;
  /** The relay's tools/call, tracked as in flight on the session while it runs. */
  callTool(requestId: RequestId, params: Params, extra: DownstreamExtra): Promise<CallToolResult>;
}

/** Where one call's messages go when it did not come through the transport (the HTTP lean path). */
export interface CallReply {
  /** A message related to the call, sent before its answer; false when nothing can reach the client any more. */
  stream(message: JSONRPCMessage): boolean;
  /** The call's answer: its result or its error. */
  answer(message: JSONRPCResultResponse | JSONRPCErrorResponse): void;
  /** The call was cancelled or its session closed: no answer will come. */
  abandon(): void;
}

interface Call {
  readonly cancellation: RequestCancellation;
  readonly reply: CallReply | undefined;
}

/** A tools/call request the fast path can answer. */
interface PlainCall {
  id: RequestId;
  params: Params;
}

export class FastToolCalls implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  readonly #inner: Transport;
  readonly #session: FastCallSession;
  readonly #calls = new Map<RequestId, Call>();
  readonly #endStream: ((requestId: RequestId) => void) | undefined;

  /**
   * `endStream` ends the response a request that came through the transport is answered on, when it has
   * one of its own (HTTP): called once the request's cancellation has been passed on to the SDK, or has
   * stopped a call of ours.
   */
  constructor(inner: Transport, session: FastCallSession, endStream?: (requestId: RequestId) => void) {
    this.#inner = inner;
    this.#session = session;
    this.#endStream = endStream;
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  async start(): Promise<void> {
    const inner = this.#inner;
    inner.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => this.#receive(message, extra);
    inner.onclose = () => this.#closed();
    inner.onerror = (error) => {
      if (error instanceof OversizedMessageError) this.#refuseOversized(error);
      this.onerror?.(error);
    };
    await inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const related = options?.relatedRequestId;
    const call = related === undefined ? undefined : this.#calls.get(related);
    if (call?.reply && !call.cancellation.cancelled) {
      // As the SDK's transport does for a request whose stream is gone.
      if (!call.reply.stream(message)) return Promise.reject(new Error(`No connection established for request ID: ${String(related)}`));
      return Promise.resolve();
    }
    return this.#inner.send(message, options);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion?.(version);
  }

  /**
   * Answers a message that did not come through the transport (the HTTP lean path): true when it is a
   * plain tools/call this path covers (its answer, and anything related to it, then go to `reply`).
   */
  serve(message: JSONRPCMessage, reply: CallReply, info?: MessageExtraInfo): boolean {
    const call = this.#plainCall(message);
    if (!call) return false;
    this.#call(call, reply, info);
    return true;
  }

  #receive(message: JSONRPCMessage, extra: MessageExtraInfo | undefined): void {
    const call = this.#plainCall(message);
    if (call) return this.#call(call, undefined, extra);
    if (this.#dropNested(message)) return;
    if (this.#calls.size > 0 && this.#cancel(message)) return;
    if (this.#refuseParams(message)) return;
    this.onmessage?.(passableAnswer(message), extra);
    // Cancelled, a request the SDK serves gets no answer: nothing else would end its response.
    if (this.#endStream) {
      const cancelled = cancellation(message);
      if (cancelled) this.#endStream(cancelled.requestId);
    }
  }

  /**
   * A tools/call whose params the SDK would fail to parse, or any other request whose params nest too
   * deeply to relay: answered here with -32602 and a sentence (the SDK answers -32603 with zod's dump, and a
   * request nested thousands of levels deep overflowed the stack in the relay, blamed on the server). Both
   * entrances come through here: HTTP posts the fast path left to the transport, and every stdio and bridge message.
   */
  #refuseParams(message: JSONRPCMessage): boolean {
    const m = message as { id?: RequestId; method?: unknown; params?: unknown };
    if (typeof m.method !== 'string' || m.id === undefined) return false;
    const problem = m.method === 'tools/call' ? callParamsProblem(m.params) : paramsNestingProblem(m.params);
    if (problem === undefined) return false;
    void this.#inner.send({ jsonrpc: '2.0', id: m.id, error: { code: ErrorCode.InvalidParams, message: problem } }).catch(() => undefined);
    return true;
  }

  /**
   * A notification whose params nest too deeply to take (a cancellation's reason 100,000 levels deep
   * overflowed the stack in the relay): dropped, as a request is refused, before anything reads it. It gets
   * no answer; the SDK Server hears of it as an error (DroppedNotification), which the session logs.
   */
  #dropNested(message: JSONRPCMessage): boolean {
    const m = message as { id?: unknown; method?: unknown; params?: unknown };
    if (typeof m.method !== 'string' || m.id !== undefined || typeof m.params !== 'object' || m.params === null) return false;
    const problem = notificationNestingProblem(m.method, m.params);
    if (problem === undefined) return false;
    this.onerror?.(new DroppedNotification(problem));
    return true;
  }

  /**
   * A line over the client message limit (the bridge socket, stdio) was skipped as it arrived: the request
   * it carried, when its id could be read at either end, is refused with the limit's words. An answer it
   * carried (to sampling, elicitation, roots/list) is handed to the SDK Server as an error answer with the
   * limit's words instead, so the session's request of that id fails at once, and with it the call that
   * asked (it would otherwise wait out the relayed request's 10 minutes).
   */
  #refuseOversized(error: OversizedMessageError): void {
    const message = clientMessageTooLarge(error.bytes);
    const id = oversizedRequestId(error);
    if (id !== undefined) {
      void this.#inner.send({ jsonrpc: '2.0', id, error: { code: ErrorCode.InvalidRequest, message } }).catch(() => undefined);
      return;
    }
    const answered = oversizedResponseId(error);
    if (answered !== undefined) this.onmessage?.({ jsonrpc: '2.0', id: answered, error: { code: ErrorCode.InvalidRequest, message } });
  }

  #plainCall(message: JSONRPCMessage): PlainCall | undefined {
    const m = message as { id?: RequestId; method?: unknown; params?: unknown };
    if (m.method !== 'tools/call' || m.id === undefined) return undefined;
    const session = this.#session;
    if (session.closed || !session.initialized || this.#calls.has(m.id) || !isPlainCall(m.params)) return undefined;
    return { id: m.id, params: m.params };
  }

  /** A cancellation of a call of ours: stops it (its answer is never sent). */
  #cancel(message: JSONRPCMessage): boolean {
    const cancelled = cancellation(message);
    if (!cancelled) return false;
    const call = this.#calls.get(cancelled.requestId);
    if (!call) return false;
    call.cancellation.cancel(cancelled.reason);
    // One that came through the transport (in a batch) gets no answer either: its response is ended there.
    if (call.reply) call.reply.abandon();
    else this.#endStream?.(cancelled.requestId);
    return true;
  }

  #call({ id, params }: PlainCall, reply: CallReply | undefined, info: MessageExtraInfo | undefined): void {
    // Refused before the relay: it would fail inside the hub, blamed on the server (see MAX_ARGUMENT_DEPTH).
    const nesting = nestingProblem(params);
    if (nesting !== undefined) {
      const refusal: JSONRPCErrorResponse = { jsonrpc: '2.0', id, error: { code: ErrorCode.InvalidParams, message: nesting } };
      if (reply) reply.answer(refusal);
      else void this.#inner.send(refusal).catch(() => undefined);
      return;
    }
    const cancellation = new RequestCancellation();
    const call: Call = { cancellation, reply };
    this.#calls.set(id, call);
    const extra = requestExtra({
      server: this.#session.server,
      requestId: id,
      cancellation,
      sessionId: this.#inner.sessionId,
      meta: params._meta,
      info,
    });
    this.#session.callTool(id, params, extra).then(
      (result) => this.#answer(id, call, { result, jsonrpc: '2.0', id }),
      (error: { code?: unknown; message?: string; data?: unknown }) =>
        this.#answer(id, call, {
          jsonrpc: '2.0',
          id,
          error: {
            code: typeof error?.code === 'number' && Number.isSafeInteger(error.code) ? error.code : ErrorCode.InternalError,
            message: error?.message ?? 'Internal error',
            ...(error?.data !== undefined ? { data: error.data } : {}),
          },
        }),
    );
  }

  #answer(id: RequestId, call: Call, message: JSONRPCResultResponse | JSONRPCErrorResponse): void {
    if (this.#calls.get(id) === call) this.#calls.delete(id);
    // As the SDK: nothing is answered to a cancelled request.
    if (call.cancellation.cancelled) return;
    if (call.reply) call.reply.answer(message);
    else void this.#inner.send(message).catch(() => undefined);
  }

  #closed(): void {
    // As the SDK does for its own handlers: a closed session stops its calls (upstream cancellations follow).
    const calls = [...this.#calls.values()];
    this.#calls.clear();
    for (const call of calls) {
      call.cancellation.cancel();
      call.reply?.abandon();
    }
    this.onclose?.();
  }
}

/** A client's notification dropped for what it carries; its message says why (the session logs it). */
export class DroppedNotification extends Error {
  override readonly name = 'DroppedNotification';
}

/**
 * The message itself, or, for a client's answer nested too deeply to pass on, an error answer of the same
 * id saying so: the request the hub sent fails with the limit, not with a stack overflow further on.
 */
function passableAnswer(message: JSONRPCMessage): JSONRPCMessage {
  const m = message as { id?: RequestId | null; method?: unknown; result?: unknown; error?: unknown };
  if (m.method !== undefined || m.id === undefined || m.id === null) return message;
  const problem = answerNestingProblem(m);
  return problem === undefined ? message : { jsonrpc: '2.0', id: m.id, error: { code: ErrorCode.InvalidRequest, message: problem } };
}

/** A notifications/cancelled's params: the request it cancels and why; undefined for any other message. */
function cancellation(message: JSONRPCMessage): { requestId: RequestId; reason?: unknown } | undefined {
  const m = message as { method?: unknown; params?: { requestId?: RequestId; reason?: unknown } };
  if (m.method !== 'notifications/cancelled' || m.params?.requestId === undefined) return undefined;
  return { requestId: m.params.requestId, reason: m.params.reason };
}

/**
 * `{name, arguments?, _meta?}` with a string name, an object of arguments and no progress token or
 * related task: what CallToolRequestSchema passes unchanged and the pipeline handles without a stream.
 */
export function isPlainCall(params: unknown): params is Params {
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
