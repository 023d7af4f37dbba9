/**
 * The tool-call cache on the call path: looked up after the request stages (keyed by the final
 * arguments and the `_meta` sent with them), written with the upstream's raw result, which a hit shapes
 * again so the policy of the day (and a fresh spill handle) applies. A call that may change what its
 * server answers drops that server's cached results.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CachedCall, CallCache, CallMeta } from '../policy/call-cache.js';
import { elapsedMs, type CallContext } from './call-context.js';

/** The cache, when this call's policy caches (cacheTtlSeconds above 0) and Spillway is not paused. */
export function cacheFor(ctx: CallContext, cache: CallCache | undefined, paused: boolean): CallCache | undefined {
  return ctx.values && ctx.values.cacheTtlSeconds > 0 && !paused ? cache : undefined;
}

/** A fresh cached result for this call's arguments and `_meta`, if there is one. */
export function lookUp(ctx: CallContext, cache: CallCache): CachedCall | undefined {
  return cache.get(ctx.server, ctx.tool, ctx.args, sentMeta(ctx));
}

/**
 * Whether a call may change what its server answers, so that its cached results may no longer be true: a
 * tool that is not annotated readOnlyHint, unless its policy caches it. A cache time set for a tool (or
 * its server) says its answers can be reused, so its calls count as reads: a miss of it does not drop the
 * results cached for the server's other tools (or for its own other arguments).
 */
export function mayChangeThings(ctx: CallContext): boolean {
  if (ctx.entry.upstream.annotations?.readOnlyHint === true) return false;
  return !(ctx.values && ctx.values.cacheTtlSeconds > 0);
}

/**
 * Sends the call around the cache, right when it is sent (`send` writes the request). A call that may
 * change things drops its server's cached results before it is sent, and again once it is answered or
 * failed, before its answer goes on: a read answered while it ran may have been stored with what was there
 * before it. A read notes the cache's ticket, so an answer that a clear overtook is not stored
 * (`keepInCache`). Returns the call's promise and that ticket.
 */
export function sendAroundCache(
  ctx: CallContext,
  cache: CallCache | undefined,
  send: () => Promise<CallToolResult>,
): { calling: Promise<CallToolResult>; ticket: number | undefined } {
  if (!cache) return { calling: send(), ticket: undefined };
  if (!mayChangeThings(ctx)) return { calling: send(), ticket: cache.ticket() };
  cache.clear(ctx.server);
  const calling = send().finally(() => cache.clear(ctx.server));
  return { calling, ticket: undefined };
}

/**
 * Result stage: the upstream's result kept under this call's arguments and `_meta` (with what the call
 * cost), and with this call's PII vault: the result's placeholders carry its tag, and only it restores
 * them. Not stored when its server's results were dropped after `ticket` (see sendAroundCache). Not called
 * for a call during which its upstream sent a client a request (see UpstreamRequests.sentFrom), nor for
 * a result whose long texts were streamed to disk (the hub does not hold those in memory).
 */
export function keepInCache(ctx: CallContext, cache: CallCache, result: CallToolResult, ticket: number | undefined): void {
  const values = ctx.values!;
  const meta = sentMeta(ctx);
  cache.set(ctx.server, ctx.tool, ctx.args, result, {
    ttlSeconds: values.cacheTtlSeconds,
    cacheErrors: values.cacheErrors,
    durationMs: elapsedMs(ctx),
    ...(ctx.masking ? { vault: ctx.masking.vault } : {}),
    ...(meta ? { meta } : {}),
    ...(ticket !== undefined ? { since: ticket } : {}),
  });
}

/**
 * The client's `_meta` the upstream is sent with the call (upstream-call.ts), without its progressToken
 * (Spillway sends its own): the upstream may answer by it (a locale, a user). Undefined when there is none.
 */
function sentMeta(ctx: CallContext): CallMeta | undefined {
  const meta = ctx.params._meta;
  if (!meta) return undefined;
  const { progressToken: _token, ...rest } = meta;
  return Object.keys(rest).length > 0 ? rest : undefined;
}
