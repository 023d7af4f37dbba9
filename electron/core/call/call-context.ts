/**
 * One tools/call as it moves through the pipeline: what was called (the catalog entry and its effective
 * policy), where from (session, its transport kind, the client's cancellation signal), the arguments at
 * each request stage, and PII masking. Built once per call; the request stages fill in the arguments.
 * It is also the spill store's ShapeContext (server, tool, client), so shaping needs no object of its own.
 */
import { randomUUID } from 'node:crypto';
import type { CallToolRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Settings } from '../../../shared/config.js';
import type { ToolEntry } from '../catalog/catalog.js';
import type { ValueMask } from '../log/secret-values.js';
import type { DownstreamExtra, DownstreamSession, SessionTransportKind } from '../downstream/session.js';
import type { PiiMasker } from '../pii/pii-masker.js';
import type { PiiVault } from '../pii/pii-vault.js';
import type { CallPolicy } from '../policy/resolve.js';
import type { ShapePolicy } from '../spill/shape-decision.js';
import type { CallOptions, ResultPolicy } from './relay-contract.js';

export type CallArguments = Record<string, unknown> | undefined;

/** A call's result policy; `spillAsked` when dispatch's resultToSpill asked for the result to be kept (ShapePolicy). */
export type CallResultPolicy = ResultPolicy & Pick<ShapePolicy, 'spillAsked'>;

/** PII masking of one call: the upstream gets placeholders; the vault (this call only, in memory) restores its answer. */
export interface Masking {
  masker: PiiMasker;
  vault: PiiVault;
  /** The result is masked too before it is spilled or shown to a model; the client gets the originals. */
  maskResults: boolean;
  /** The client's arguments, masked (without the policy's hidden values): what the log shows. */
  arguments: CallArguments;
}

/** What the compression stage needs beyond the result policy (action 'compress', issue 8). */
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

export interface CallContext {
  readonly callId: string;
  /** performance.now() when the call came in. */
  readonly started: number;
  readonly session: DownstreamSession;
  readonly kind: SessionTransportKind;
  readonly extra: DownstreamExtra;
  /** Aborted when the client cancels the call. */
  readonly signal: AbortSignal;
  readonly params: CallToolRequest['params'];
  readonly entry: ToolEntry;
  /** The tool's effective policy (defaults ← server ← tool); undefined when the relay has none. */
  readonly values: CallPolicy | undefined;
  /** What the result is shaped under: the tool's policy, settings.spill without one, a forced spill for dispatch's resultToSpill. */
  readonly resultPolicy: CallResultPolicy;
  /** ShapeContext: the server's id, the upstream's own tool name and the client's name. */
  readonly server: string;
  readonly tool: string;
  readonly client: string | undefined;
  /** The arguments after the request stages so far (what the cache keys on). */
  args: CallArguments;
  /** What the upstream gets: `args`, the client's part masked when the policy masks PII. */
  forwarded: CallArguments;
  compress: CompressRequest | undefined;
  masking: Masking | undefined;
  /** Replaces the hidden values this call injects in what goes back (hidden-values.ts); undefined when it injects none. */
  hiding: ValueMask | undefined;
}

/** The context of a call of `entry`, before any request stage ran. */
export function newCallContext(
  session: DownstreamSession,
  params: CallToolRequest['params'],
  extra: DownstreamExtra,
  entry: ToolEntry,
  values: CallPolicy | undefined,
  settings: Settings,
  options: CallOptions,
): CallContext {
  const resultPolicy: CallResultPolicy = options.resultToSpill
    ? {
        action: 'spill',
        spillAsked: true,
        thresholdTokens: 1,
        previewTokens: values?.previewTokens ?? settings.spill.previewTokens,
        spillAlways: true,
        encoding: values?.encoding ?? settings.policy.encoding,
      }
    : (values ?? settings.spill);
  return new ToolCallContext(session, params, extra, entry, values, resultPolicy);
}

/**
 * A class, not an object literal: a literal with a getter (`signal`) is built by V8's slow path, a
 * visible share of a small call.
 */
class ToolCallContext implements CallContext {
  readonly callId = randomUUID();
  readonly started = performance.now();
  readonly kind: SessionTransportKind;
  readonly server: string;
  readonly tool: string;
  readonly client: string | undefined;
  args: CallArguments;
  forwarded: CallArguments;
  compress: CompressRequest | undefined = undefined;
  masking: Masking | undefined = undefined;
  hiding: ValueMask | undefined = undefined;

  constructor(
    readonly session: DownstreamSession,
    readonly params: CallToolRequest['params'],
    readonly extra: DownstreamExtra,
    readonly entry: ToolEntry,
    readonly values: CallPolicy | undefined,
    readonly resultPolicy: CallResultPolicy,
  ) {
    this.kind = session.kind;
    this.server = entry.serverId;
    this.tool = entry.original;
    this.client = session.clientName;
    this.args = params.arguments;
    this.forwarded = params.arguments;
  }

  // Read when used: on the fast path the signal is made only then (request-extra.ts).
  get signal(): AbortSignal {
    return this.extra.signal;
  }
}

/** Milliseconds since the call came in, to two decimals. */
export function elapsedMs(ctx: CallContext): number {
  return Math.round((performance.now() - ctx.started) * 100) / 100;
}
