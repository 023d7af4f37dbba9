/**
 * What a Bridge is given (bridge.ts), and the defaults of its time bounds: an option given as undefined
 * (e.g. no SPILLWAY_BRIDGE_TIMEOUT_MS) keeps its default (issue 13, item 1).
 */
import type { Readable, Writable } from 'node:stream';
import type { HubLauncher } from './launcher.js';

export interface BridgeOptions {
  input: Readable;
  output: Writable;
  /** One line of diagnostics (stderr). */
  log: (line: string) => void;
  socketPath: string;
  /** The hub token: read before each connection (SPILLWAY_TOKEN, else the token file). */
  token: () => Promise<string | undefined>;
  /** The token comes from SPILLWAY_TOKEN (the client's settings), not the token file: a refusal says so. */
  tokenFromEnv?: boolean;
  /** The HTTP endpoints to fall back to, in order, when no socket answers. */
  httpUrls?: () => Promise<string[]>;
  /**
   * The id of this data folder's hub (files/hub-identity.ts), undefined before any hub ran there. A hub
   * is used only when it proves that id, on the socket and over HTTP alike, before it is sent the token:
   * the socket may sit in a shared temp folder, and a pipe name can be taken by anyone.
   */
  hubId: () => Promise<string | undefined>;
  /** Undefined with --no-start. */
  startHub?: HubLauncher;
  /** The client this bridge serves (e.g. claude-desktop), sent in the handshake. */
  client?: string;
  /**
   * How long a hub the bridge starts has to answer before the waiting calls fail (default 10 s, under
   * what clients wait for their first answer). At start it counts from the first look; after losing a hub,
   * from the end of restartGraceMs. With --no-start the first look decides: nothing answers, the bridge ends.
   */
  timeoutMs?: number;
  /** After losing the hub, how long to wait for it to come back before starting one (default 10 s). */
  restartGraceMs?: number;
  /** After a restart, how long calls sent during the outage wait for the tools they name (default 15 s). */
  toolsWaitMs?: number;
  /** After the client closed stdin, how long its unanswered requests may take before the bridge ends (default 60 s). */
  closingWaitMs?: number;
}

export type Bounds = Required<Pick<BridgeOptions, 'timeoutMs' | 'restartGraceMs' | 'toolsWaitMs' | 'closingWaitMs'>>;

/** The options with every time bound filled in. */
export function withBounds(options: BridgeOptions): BridgeOptions & Bounds {
  return {
    ...options,
    timeoutMs: options.timeoutMs ?? 10_000,
    restartGraceMs: options.restartGraceMs ?? 10_000,
    toolsWaitMs: options.toolsWaitMs ?? 15_000,
    // The longest a call runs by default is 30 s (a server's timeoutMs).
    closingWaitMs: options.closingWaitMs ?? 60_000,
  };
}
