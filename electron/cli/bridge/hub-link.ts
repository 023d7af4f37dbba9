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

/** The hub answered, and refused the token: it will not change its mind. */
export class TokenRefused extends Error {
  override readonly name = 'TokenRefused';
  /** `reason`: the hub's own words, or the HTTP status. */
  constructor(
    readonly where: string,
    readonly reason: string,
  ) {
    super(`the hub at ${where} refused the token (${reason})`);
  }
}

/** Why the hub turned the bridge away, and what to do: a token from the client's settings is the usual cause. */
export function refusal(err: Error, tokenFromEnv = false): string {
  if (!(err instanceof TokenRefused)) return `Spillway refused the bridge: ${err.message}`;
  if (!tokenFromEnv) return `Spillway refused the bridge at ${err.where}: ${err.reason}`;
  return (
    `Spillway refused the bridge at ${err.where}: this client's settings carry a SPILLWAY_TOKEN that is not this Spillway's token. ` +
    "Remove SPILLWAY_TOKEN from this client's settings (the bridge then reads the token itself), or reconnect the app from Spillway's Clients view, and restart the client."
  );
}

/**
 * What became of a message an HTTP link could not deliver, as far as the failure tells:
 * - `not-sent`: no hub took it (connection refused, or a new hub that does not know the session, 404):
 *   it can be sent again without running twice;
 * - `maybe-run`: the connection broke after it went out: the hub may have run it, so it is never re-sent;
 * - `refused`: the hub is up and answered it with an error status (a message it would not take).
 */
export type Undelivered = 'not-sent' | 'maybe-run' | 'refused';

/**
 * What a link reports to the bridge. Each event names its link: one the bridge has dropped may still
 * report (an HTTP response under way when the hub was lost), and is ignored.
 */
export interface HubLinkEvents {
  /** A message from the hub as one line (newline included); `message` when the link has parsed it already. */
  line(link: HubLink, raw: Buffer, message?: Peek): void;
  /** A hub message over the client pipe limit, with the id of the response it was, when known. */
  oversized(link: HubLink, bytes: number, id: Id | undefined): void;
  /** A client message that reached no live session (HTTP only). */
  unsent(link: HubLink, raw: Buffer, message: Peek, error: Error, fate: Undelivered): void;
  /** The connection is gone. */
  lost(link: HubLink): void;
  /** One line of diagnostics. */
  log(line: string): void;
}
