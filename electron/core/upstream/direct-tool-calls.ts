/**
 * A Transport wrapping an upstream's real one, handed to the SDK Client's `connect` in its place (issue
 * 12), through which plain tools/call requests go straight onto the wire (UpstreamClient.request): per
 * call the SDK costs a zod validation of every result, a 24 h timer, an abort listener it never removes
 * and a few closures, which together were most of a trivial call's relay time (issue 6). Its `start`
 * takes the real transport's callbacks and keeps the answers to its own requests; everything else goes
 * on to the SDK.
 *
 * The direct path keeps the SDK's contract — same message on the wire, McpError for an error answer or a
 * closed connection, cancellation sent upstream on abort, the result validated by the given schema
 * unless it is plain text content (then the schema would return it as it is).
 */
import { safeParse, type AnySchema, type SchemaOutput } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type JSONRPCMessage, type MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';

/** Direct request ids: far above the SDK's own counter (it starts at 0), within a signed 32-bit integer. */
const DIRECT_FIRST_ID = 1_000_000_000;
const DIRECT_LAST_ID = 2_147_483_647;
/** Below this a direct request keeps its own timer; the pipeline passes a 24 h ceiling and its own signal. */
const DIRECT_TIMER_MAX_MS = 3_600_000;

/** A direct request on its way: its answer, and how to withdraw it. */
export interface DirectCall<T> {
  result: Promise<T>;
  /** Rejects `result` with `reason` (an McpError as it is, else a RequestTimeout McpError) and tells the server; no-op once settled. */
  cancel(reason: unknown): void;
}

type DirectReply = { id: number; result: unknown } | { id: number; error: { code: number; message: string; data?: unknown } };

export class DirectToolCalls implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  closed = false;
  readonly #inner: Transport;
  #nextId = DIRECT_FIRST_ID;
  #pending = new Map<number, (reply: DirectReply | Error) => void>();

  constructor(inner: Transport) {
    this.#inner = inner;
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  async start(): Promise<void> {
    const inner = this.#inner;
    inner.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
      const id = (message as { id?: unknown }).id;
      if (typeof id === 'number' && id >= DIRECT_FIRST_ID && !('method' in message)) {
        // A late answer to a cancelled request is dropped, as the SDK drops its own.
        this.#pending.get(id)?.(message as DirectReply);
        return;
      }
      this.onmessage?.(message, extra);
    };
    inner.onclose = () => {
      this.closed = true;
      this.onclose?.();
      const pending = [...this.#pending.values()];
      this.#pending.clear();
      for (const settle of pending) settle(McpError.fromError(ErrorCode.ConnectionClosed, 'Connection closed'));
    };
    inner.onerror = (error) => this.onerror?.(error);
    await inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.#inner.send(message, options);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion?.(version);
  }

  /** Whether a request can go direct: no progress callback, task, related request or resumption. */
  static covers(request: { params?: unknown }, options: RequestOptions | undefined): boolean {
    const params = request.params as { task?: unknown } | undefined;
    if (params?.task !== undefined) return false;
    if (!options) return true;
    return (
      !options.onprogress &&
      !options.task &&
      !options.relatedTask &&
      options.relatedRequestId === undefined &&
      !options.resumptionToken &&
      !options.onresumptiontoken &&
      options.maxTotalTimeout === undefined &&
      !options.resetTimeoutOnProgress
    );
  }

  /** Sends a request straight on the transport and waits for its answer (see the file's comment). */
  request<T extends AnySchema>(
    request: { method: string; params?: Record<string, unknown> },
    schema: T,
    options: RequestOptions = {},
  ): Promise<SchemaOutput<T>> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const timeout = options.timeout ?? 60_000;
    const call = this.call(request, schema);
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => call.cancel(signal!.reason);
    // Armed once the request is on its way: nothing can answer it before this turn of the event loop ends.
    signal?.addEventListener('abort', onAbort, { once: true });
    // With a signal and a long ceiling the caller's own timer bounds the wait: no timer per call here.
    if (!signal || timeout < DIRECT_TIMER_MAX_MS) {
      timer = setTimeout(() => call.cancel(McpError.fromError(ErrorCode.RequestTimeout, 'Request timed out', { timeout })), timeout);
    }
    if (!signal && !timer) return call.result;
    const settled = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    call.result.then(settled, settled);
    return call.result;
  }

  /**
   * Sends a request straight on the transport (it is written before this returns) and hands back its
   * answer and how to withdraw it: `cancel` rejects the answer and sends notifications/cancelled upstream.
   * No signal and no timer: the caller bounds the wait its own way.
   */
  call<T extends AnySchema>(request: { method: string; params?: Record<string, unknown> }, schema: T): DirectCall<SchemaOutput<T>> {
    const id = this.#nextId;
    this.#nextId = id >= DIRECT_LAST_ID ? DIRECT_FIRST_ID : id + 1;
    let cancel!: (reason: unknown) => void;
    const result = new Promise<SchemaOutput<T>>((resolve, reject) => {
      cancel = (reason: unknown) => {
        if (!this.#pending.delete(id)) return;
        this.#inner
          .send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: String(reason) } })
          .catch(() => undefined);
        reject(reason instanceof McpError ? reason : new McpError(ErrorCode.RequestTimeout, String(reason)));
      };
      this.#pending.set(id, (reply) => {
        this.#pending.delete(id);
        if (reply instanceof Error) return reject(reply);
        if ('error' in reply) return reject(McpError.fromError(reply.error.code, reply.error.message, reply.error.data));
        if (isPlainTextResult(reply.result)) return resolve(reply.result as SchemaOutput<T>);
        const parsed = safeParse(schema, reply.result);
        if (parsed.success) resolve(parsed.data);
        else reject(parsed.error);
      });
      this.#inner.send({ ...request, jsonrpc: '2.0', id } as JSONRPCMessage).catch((error: unknown) => {
        if (this.#pending.delete(id)) reject(error);
      });
    });
    return { result, cancel };
  }
}

/**
 * `{content: [{type: 'text', text}…], isError?}` and nothing else: what CallToolResultSchema would
 * return unchanged, so it is not run for the common case.
 */
function isPlainTextResult(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const result = value as { content?: unknown; isError?: unknown };
  for (const key in result) {
    if (key !== 'content' && !(key === 'isError' && typeof result.isError === 'boolean')) return false;
  }
  if (!Array.isArray(result.content)) return false;
  for (const block of result.content as unknown[]) {
    if (typeof block !== 'object' || block === null) return false;
    const b = block as { type?: unknown; text?: unknown };
    if (b.type !== 'text' || typeof b.text !== 'string') return false;
    let keys = 0;
    for (const _ in b) keys++;
    if (keys !== 2) return false;
  }
  return true;
}
