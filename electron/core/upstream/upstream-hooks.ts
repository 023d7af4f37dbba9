/** What an Upstream is given: the hub's hooks (transports, events, request routing) and its tuning. */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Implementation } from '@modelcontextprotocol/sdk/types.js';
import type { ServerConfig } from '../../../shared/config.js';
import type { UpstreamStatus } from '../../../shared/events.js';

export interface UpstreamTransportHandle {
  transport: Transport;
  /** Bounded tail of the child's stderr (stdio only). */
  stderrTail?: () => string[];
}

export type UpstreamRequestKind = 'sampling' | 'elicitation' | 'roots';

/** What an upstream needs from the hub: events out, and a way to route its own requests to a client. */
export interface UpstreamHooks {
  createTransport(id: string, config: ServerConfig, onStderr: (line: string) => void): Promise<UpstreamTransportHandle>;
  onStatus(id: string, status: UpstreamStatus, error?: string): void;
  onStderr(id: string, line: string): void;
  /** A list changed (or was first loaded): the catalog rebuilds. */
  onListsChanged(id: string): void;
  onProgress(id: string, params: { progressToken: string | number; progress: number; total?: number; message?: string }): void;
  onLog(id: string, params: { level: string; logger?: string; data?: unknown }): void;
  onResourceUpdated(id: string, uri: string): void;
  /** The upstream asks the client something (sampling, elicitation, roots). */
  routeRequest(
    id: string,
    kind: UpstreamRequestKind,
    request: { method: string; params?: Record<string, unknown> },
    extra: RequestHandlerExtra<never, never>,
  ): Promise<Record<string, unknown>>;
}

export interface UpstreamOptions {
  clientInfo: Implementation;
  /** Connect/initialize timeout for a normal start. */
  connectTimeoutMs?: number;
  /** Longer grace for a first start that downloads (npx -y, uvx). */
  downloadGraceMs?: number;
  /** Failures within `crashWindowMs` that count as a crash loop. */
  crashLoopFailures?: number;
  crashWindowMs?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Longest wait between tries of an unreachable HTTP or SSE server (never given up on). */
  networkRetryMaxMs?: number;
  now?: () => number;
}
