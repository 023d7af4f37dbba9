/**
 * The tool-call cache on the call path: looked up after the request stages (keyed by the final
 * arguments), written with the upstream's raw result, which a hit shapes again so the policy of the day
 * (and a fresh spill handle) applies.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CallCache } from '../policy/call-cache.js';
import { elapsedMs, type CallContext } from './call-context.js';

/** The cache, when this call's policy caches (cacheTtlSeconds above 0) and Spillway is not paused. */
export function cacheFor(ctx: CallContext, cache: CallCache | undefined, paused: boolean): CallCache | undefined {
  return ctx.values && ctx.values.cacheTtlSeconds > 0 && !paused ? cache : undefined;
}

/**
 * Result stage: the upstream's result kept under this call's arguments (with what the call cost), and
 * with this call's PII vault: the result's placeholders carry its tag, and only it restores them. Not
 * called for a call during which its upstream sent a client a request (see ClientRequestCount).
 */
export function keepInCache(ctx: CallContext, cache: CallCache, result: CallToolResult): void {
  const values = ctx.values!;
  cache.set(ctx.server, ctx.tool, ctx.args, result, {
    ttlSeconds: values.cacheTtlSeconds,
    cacheErrors: values.cacheErrors,
    durationMs: elapsedMs(ctx),
    ...(ctx.masking ? { vault: ctx.masking.vault } : {}),
  });
}

/**
 * Requests each upstream has sent a client (roots/list, sampling/createMessage, elicitation/create),
 * counted by the relay as they arrive. A result the upstream made while asking a client depends on that
 * client's answer (its folders, its model, its user), but the cache key is only server, tool and
 * arguments: cached, alice's roots would be given to bob. The relay sends such requests to the calling
 * client so that no other client sees them, and a cached result would undo that. So a call is not
 * cached when its upstream's count changed while it ran. The count is per upstream, not per call: a
 * request made during another call to the same upstream keeps this one out of the cache too, which costs
 * a cache entry at most and needs no guess about which call a request belongs to.
 */
export class ClientRequestCount {
  readonly #counts = new Map<string, number>();

  /** One more request from that upstream to a client. */
  add(serverId: string): void {
    this.#counts.set(serverId, this.of(serverId) + 1);
  }

  /** The requests that upstream has sent a client so far; a call notes it when sent and compares after. */
  of(serverId: string): number {
    return this.#counts.get(serverId) ?? 0;
  }
}
