/**
 * An HTTP session's notifications that nothing could carry yet. The hub sends a notification unrelated to
 * a request (tools/list_changed, resources/updated) on the session's GET stream; while the client has not
 * opened that stream yet (between initialize and its GET) or is reopening it, the SDK's transport drops
 * it, and a client would then never learn that its lists changed. Those notifications are held here and
 * sent once the stream is open: each list change once, each updated resource once, however often they
 * came meanwhile. Everything else passes on unchanged.
 *
 * It is a Transport wrapping the session's SDK transport; the endpoint says when the GET stream opens and
 * closes (http-endpoint.ts).
 */
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';

/** Notifications a client needs even late: its lists changed, or a resource it subscribed to did. */
const HELD_METHODS = new Set(['notifications/tools/list_changed', 'notifications/resources/list_changed', 'notifications/prompts/list_changed']);
const RESOURCE_UPDATED = 'notifications/resources/updated';
/** Updated resources held at most (past it, as before, they are dropped). */
const MAX_HELD_UPDATES = 256;

export class HeldNotifications implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  readonly #inner: Transport;
  #streams = 0;
  /** Held messages by what they say (a method, or a method and a resource): the same news is sent once. */
  readonly #held = new Map<string, JSONRPCMessage>();

  constructor(inner: Transport) {
    this.#inner = inner;
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  /** Messages held for a stream that is not open. */
  get heldCount(): number {
    return this.#held.size;
  }

  async start(): Promise<void> {
    const inner = this.#inner;
    inner.onmessage = (message, extra) => this.onmessage?.(message, extra);
    inner.onclose = () => {
      this.#held.clear();
      this.onclose?.();
    };
    inner.onerror = (error) => this.onerror?.(error);
    await inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.#streams === 0 && options?.relatedRequestId === undefined && this.#hold(message)) return Promise.resolve();
    return this.#inner.send(message, options);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion?.(version);
  }

  /** The client's GET stream is open (its response head was written): what was held goes out on it. */
  streamOpened(): void {
    this.#streams++;
    const held = [...this.#held.values()];
    this.#held.clear();
    for (const message of held) void this.#inner.send(message).catch(() => undefined);
  }

  /** The client's GET stream closed: until it reopens, list changes are held again. */
  streamClosed(): void {
    this.#streams = Math.max(0, this.#streams - 1);
  }

  /** Keeps `message` for the stream when it is news the client needs late; false for anything else. */
  #hold(message: JSONRPCMessage): boolean {
    const m = message as { id?: unknown; method?: unknown; params?: { uri?: unknown } };
    if (m.id !== undefined || typeof m.method !== 'string') return false;
    if (HELD_METHODS.has(m.method)) {
      this.#held.set(m.method, message);
      return true;
    }
    if (m.method !== RESOURCE_UPDATED || typeof m.params?.uri !== 'string') return false;
    const key = `${m.method} ${m.params.uri}`;
    if (this.#held.has(key) || this.#updates() < MAX_HELD_UPDATES) this.#held.set(key, message);
    return true;
  }

  #updates(): number {
    let n = 0;
    for (const key of this.#held.keys()) if (key.startsWith(RESOURCE_UPDATED)) n++;
    return n;
  }
}
