import type { Id, Peek } from './messages.js';

/** One way to the hub: the socket or an HTTP session. */
export interface HubLink {
  readonly kind: 'socket' | 'http';
  /** Sends one line (with its newline); false when the link wants the sender to wait for 'drain'. */
  send(line: Buffer, message: Peek | undefined): boolean;
  onDrain(fn: () => void): void;
  pause(): void;
  resume(): void;
  close(): void;
  /** HTTP only: the negotiated protocol version, for its headers. */
  setProtocolVersion?(version: string): void;
}

/** What a link reports to the bridge. */
export interface HubLinkEvents {
  /** A message from the hub as one line (newline included); `message` when the link has parsed it already. */
  line(raw: Buffer, message?: Peek): void;
  /** A hub message over the client pipe limit, with the id of the response it was, when known. */
  oversized(bytes: number, id: Id | undefined): void;
  /** A client message that reached no live session (HTTP: refused, or 404 after a hub restart). */
  unsent(link: HubLink, raw: Buffer, message: Peek, error: Error): void;
  /** The connection is gone. */
  lost(link: HubLink): void;
  /** One line of diagnostics. */
  log(line: string): void;
}
