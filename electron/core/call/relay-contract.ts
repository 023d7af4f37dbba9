/**
 * What the relay is built from and what it hands out: Spillway's own tools and resources, the result
 * shaper's contract, and the record of a finished call. Kept apart so the parts that plug into the relay
 * (spill, dispatch, the hub) depend on these types, not on the relay itself.
 */
import type { CallToolResult, ReadResourceResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Settings } from '../../../shared/config.js';
import type { HubEventInput, ResultAction } from '../../../shared/events.js';
import type { EffectiveValues } from '../../../shared/policy.js';
import type { Catalog, ToolEntry } from '../catalog/catalog.js';
import type { CallCache } from '../policy/call-cache.js';
import type { CallPolicy } from '../policy/resolve.js';
import type { Upstream } from '../upstream/upstream.js';
import type { DownstreamExtra, DownstreamSession, SessionTransportKind } from './session.js';

/** Spillway's own tools (read_result, later dispatch). */
export interface OwnTool {
  tool: Tool;
  call(args: Record<string, unknown>, ctx: { session: DownstreamSession; extra: DownstreamExtra }): Promise<CallToolResult>;
}

export interface TokenCountResult {
  tokens: number;
  estimated: boolean;
}

/** What a shaper did with one result. */
export interface ShapeReport {
  delivered: CallToolResult;
  action: ResultAction;
  bytesUpstream: number;
  bytesDelivered: number;
  tokensUpstream?: number;
  tokensDelivered?: number;
  handle?: string;
  note?: string;
  /** Exact counts for the ledger, made off the request path. */
  countUpstreamTokens?: () => Promise<TokenCountResult>;
  countDeliveredTokens?: () => Promise<TokenCountResult>;
}

/** The tool's effective result policy; when given it replaces settings.spill for this call. */
export type ResultPolicy = Pick<EffectiveValues, 'action' | 'thresholdTokens' | 'previewTokens'>;

/** What the compression step needs beyond the result policy (action 'compress', issue 8). */
export interface CompressRequest {
  /** `_spillway_goal`: what the calling model said it needs. */
  goal?: string;
  /** `_spillway_bypass`: the calling model asked for no compression (the result spills as usual). */
  bypass?: boolean;
  /** The tool policy's compressInstructions. */
  instructions?: string;
  /** The tool policy's compressMaxTokens (before retry escalation). */
  maxTokens?: number;
}

/** What happens to a finished upstream result (spill/truncate/compress/pass). */
export interface ResultShaper {
  shape(
    result: CallToolResult,
    ctx: {
      serverId: string;
      tool: string;
      client?: string;
      callId: string;
      transport: SessionTransportKind;
      policy?: ResultPolicy;
      compress?: CompressRequest;
      /** Aborted when the client cancels the call (stops a compression in flight). */
      signal?: AbortSignal;
    },
  ): Promise<ShapeReport>;
  /**
   * The result with every long text an upstream streamed to disk read back into memory (see
   * spill/raw-texts.ts); the same object when there is none. For paths that use a result as it is.
   */
  materialize?(result: CallToolResult): Promise<CallToolResult>;
}

/** How one call is made beyond its arguments (dispatch's `resultToSpill`). */
export interface CallOptions {
  resultToSpill?: boolean;
}

/** One finished call, for the ledger. */
export interface FinishedCall {
  callId: string;
  session: DownstreamSession;
  server: string;
  tool: string;
  /** The name the client called (namespaced). */
  exposedName: string;
  durationMs: number;
  report: ShapeReport;
}

/** Own resources (spillway://...) served by Spillway itself. */
export interface OwnResources {
  matches(uri: string): boolean;
  read(uri: string): Promise<ReadResourceResult>;
}

export interface RelayDeps {
  upstreams: () => Map<string, Upstream>;
  catalog: Catalog;
  sessions: () => Iterable<DownstreamSession>;
  settings: () => Settings;
  emit: (event: HubEventInput) => void;
  ownTools: () => OwnTool[];
  ownResources?: OwnResources;
  shaper: ResultShaper;
  onSessionReady: (session: DownstreamSession) => void;
  onSessionClosed: (session: DownstreamSession) => void;
  onCallFinished?: (call: FinishedCall) => void;
  onToolsListed?: (session: DownstreamSession) => void;
  /** The effective policy of a tool (defaults ← server ← tool); without it, settings alone apply. */
  policy?: (entry: ToolEntry) => CallPolicy;
  /** The tool-call cache (used when a tool's effective cacheTtlSeconds is above 0). */
  cache?: CallCache;
}
