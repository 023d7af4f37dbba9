/**
 * What the relay is built from: the interfaces call/ consumes from the parts below it (the shaper and the
 * spilled texts of spill/, own tools and resources handed over as plain objects by spill/ and policy/,
 * the cache and policy of policy/) and the hooks the hub gives it. The parts implement these
 * structurally, without importing call/.
 */
import type { CallToolResult, ReadResourceResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Settings } from '../../../shared/config.js';
import type { HubEventInput } from '../../../shared/events.js';
import type { EffectiveValues } from '../../../shared/policy.js';
import type { Catalog, ToolEntry } from '../catalog/catalog.js';
import type { DownstreamExtra, DownstreamSession } from '../downstream/session.js';
import type { CallCache } from '../policy/call-cache.js';
import type { CallPolicy } from '../policy/resolve.js';
import type { ShapeContext, ShapedResult } from '../spill/shape-result.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { Upstream } from '../upstream/upstream.js';
import type { FinishedCall } from './call-report.js';

/** Spillway's own tools (read_result, dispatch): called with the downstream request they serve. */
export interface OwnTool {
  tool: Tool;
  call(args: Record<string, unknown>, ctx: { session: DownstreamSession; extra: DownstreamExtra }): Promise<CallToolResult>;
}

/** Own resources (spillway://...) served by Spillway itself. */
export interface OwnResources {
  matches(uri: string): boolean;
  /** `session`: the client that reads (the read-back is counted for it). */
  read(uri: string, session?: DownstreamSession): Promise<ReadResourceResult>;
}

/** The policy a result is shaped under: the tool's effective one (or settings.spill without a policy). */
export type ResultPolicy = Pick<EffectiveValues, 'action' | 'thresholdTokens' | 'previewTokens'> & {
  spillAlways?: boolean;
  /** JSON or TOON for tabular JSON (issue 18); absent: 'auto'. */
  encoding?: EffectiveValues['encoding'];
};

/** The pass/spill/truncate stage (spill/spill-feature.ts implements it). */
export interface ResultShaper {
  /** Synchronous when the result passes by its size alone. */
  shape(result: CallToolResult, policy: ResultPolicy, ctx: ShapeContext): ShapedResult | Promise<ShapedResult>;
  /** Whether some long text of this result is still on disk (an upstream streamed it there). */
  holdsSpooled(result: CallToolResult): boolean;
  /** The result with every such text read back into memory. */
  materialize(result: CallToolResult): Promise<CallToolResult>;
}

/** Spilled results as the compression stage reads them (the spill store implements it). */
export interface SpilledTexts {
  lookup(handle: string): { entry: { contentType: string; binary: readonly { mimeType: string }[] } } | { error: string };
  readText(handle: string): Promise<string>;
}

/** How one call is made beyond its arguments (dispatch's `resultToSpill`). */
export interface CallOptions {
  resultToSpill?: boolean;
}

export interface RelayDeps {
  upstreams: () => ReadonlyMap<string, Upstream>;
  catalog: Catalog;
  sessions: () => Iterable<DownstreamSession>;
  settings: () => Settings;
  emit: (event: HubEventInput) => void;
  ownTools: () => OwnTool[];
  ownResources?: OwnResources;
  shaper: ResultShaper;
  /** Where the compression stage reads a spilled result (action 'compress'). */
  spilled: SpilledTexts;
  /** Counts the condensed text (compression). */
  counter: TokenCounter;
  onSessionReady: (session: DownstreamSession) => void;
  onSessionClosed: (session: DownstreamSession) => void;
  onCallFinished?: (call: FinishedCall) => void;
  onToolsListed?: (session: DownstreamSession) => void;
  /** What a session's tools/list waits for first (its first list while upstreams start); undefined: nothing. */
  beforeToolsList?: (session: DownstreamSession) => Promise<void> | undefined;
  /**
   * A tool known only from the last run's catalog (ToolEntry.kept): resolves, bounded, once its upstream
   * started or failed. `onWait` gets a sentence saying what the wait is (for the client's progress).
   */
  untilStarted?: (serverId: string, onWait?: (message: string) => void) => Promise<void>;
  /** The effective policy of a tool (defaults ← server ← tool); without it, settings alone apply. */
  policy?: (entry: ToolEntry) => CallPolicy;
  /** The tool-call cache (used when a tool's effective cacheTtlSeconds is above 0). */
  cache?: CallCache;
  /** How long one PII masking with custom patterns may run (default PII_DEADLINE_MS; tests shorten it). */
  piiDeadlineMs?: number;
}
