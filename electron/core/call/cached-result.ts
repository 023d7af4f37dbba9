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
 * called for a call during which its upstream sent a client a request (see UpstreamRequests.sentFrom).
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
