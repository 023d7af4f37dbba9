/**
 * A Transport wrapping an upstream's real one (installed before connect) that sees what keeps the
 * server busy: our requests awaiting its answer, its requests awaiting a client's (sampling,
 * elicitation, roots), and the resources a client subscribed to. Idle stop (issue 18) asks it whether
 * the server may be stopped, and hears of every request, answer and cancellation: the idle time is time
 * without calls. Other notifications (logs, progress, list changes) and pings do not count, or a server
 * that logs every few seconds, or pings to keep alive, would never be stopped (audit s13).
 */
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';

type RequestId = string | number;

interface Fields {
  id?: RequestId;
  method?: string;
  params?: { requestId?: RequestId; uri?: unknown };
  error?: unknown;
}

export class ActivityTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  readonly #inner: Transport;
  readonly #onActivity: () => void;
  /** Our requests the server has not answered. */
  readonly #outgoing = new Set<RequestId>();
  /** The server's requests nobody has answered yet. */
  readonly #incoming = new Set<RequestId>();
  /** Resources the server accepted a subscription to (a refused subscribe holds nothing). */
  readonly #subscribed = new Set<string>();
  /** Our subscribes awaiting the server's answer, by request id. */
  readonly #subscribing = new Map<RequestId, string>();

  constructor(inner: Transport, onActivity: () => void) {
    this.#inner = inner;
    this.#onActivity = onActivity;
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion?.(version);
  }

  /** Whether stopping the server now would cut something off. */
  get busy(): boolean {
    return this.#outgoing.size > 0 || this.#incoming.size > 0 || this.#subscribed.size > 0;
  }

  async start(): Promise<void> {
    const inner = this.#inner;
    inner.onmessage = (message, extra) => {
      const m = message as Fields;
      let activity = true;
      if (m.method === undefined) {
        if (m.id !== undefined) this.#answered(m.id, m.error === undefined);
      } else if (m.id !== undefined) {
        // The server's ping is answered at once by the SDK: never busy, never activity.
        if (m.method !== 'ping') this.#incoming.add(m.id);
        else activity = false;
      } else if (m.method === 'notifications/cancelled' && m.params?.requestId !== undefined) {
        this.#incoming.delete(m.params.requestId);
      } else {
        activity = false;
      }
      this.onmessage?.(message, extra);
      if (activity) this.#onActivity();
    };
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    await inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const m = message as Fields;
    let activity = true;
    if (m.method === undefined) {
      // Our answer to one of the server's requests; the answer to its ping is none of those.
      if (m.id !== undefined) activity = this.#incoming.delete(m.id);
    } else if (m.id !== undefined) {
      this.#outgoing.add(m.id);
      activity = m.method !== 'ping';
      const uri = typeof m.params?.uri === 'string' ? m.params.uri : undefined;
      if (uri && m.method === 'resources/subscribe') this.#subscribing.set(m.id, uri);
      if (uri && m.method === 'resources/unsubscribe') this.#subscribed.delete(uri);
    } else if (m.method === 'notifications/cancelled' && m.params?.requestId !== undefined) {
      // A withdrawn request gets no answer.
      this.#answered(m.params.requestId, false);
    } else {
      activity = false;
    }
    if (activity) this.#onActivity();
    return this.#inner.send(message, options);
  }

  /** One of our requests is settled: answered (`ok`: with a result), or withdrawn. */
  #answered(id: RequestId, ok: boolean): void {
    this.#outgoing.delete(id);
    const uri = this.#subscribing.get(id);
    if (uri === undefined) return;
    this.#subscribing.delete(id);
    if (ok) this.#subscribed.add(uri);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}
