/**
 * The upstream call of a tools/call: our own timeout (reset by every progress notification, whether or
 * not the client asked for progress), the client's cancellation passed on, progress relayed back on the
 * client's request, and what a failure means for the client.
 */
import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Upstream } from '../upstream/upstream.js';
import type { CallContext } from './call-context.js';
import type { ProgressRoutes } from './progress-routes.js';
import { bareMessage, isUnreachable, rpcError } from './relay-errors.js';

/** Longest the SDK itself may wait; our own timer (reset by progress) is what actually times out. */
const SDK_TIMEOUT_CEILING_MS = 24 * 3600_000;

/** A failed call: `message` for the error result and the log; `rpc` when the client gets a JSON-RPC error instead. */
export class UpstreamFailure extends Error {
  constructor(
    message: string,
    readonly rpc?: Error,
  ) {
    super(message);
  }
}

/**
 * Sends the call to its upstream and waits for its result and for the progress relayed before it.
 * Throws an UpstreamFailure, or what the SDK threw when the client cancelled (its answer is dropped anyway).
 */
export async function callUpstream(ctx: CallContext, upstream: Upstream, progress: ProgressRoutes, timeoutMs: number): Promise<CallToolResult> {
  const client = upstream.client!;
  const tracked = ctx.session.inflight.get(ctx.extra.requestId);
  if (tracked) tracked.upstream = ctx.server;
  const signal = ctx.signal;
  const abort = new AbortController();
  const onDownstreamAbort = () => abort.abort(signal.reason ?? new Error('cancelled by the client'));
  signal.addEventListener('abort', onDownstreamAbort, { once: true });
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      abort.abort(new Error('timeout'));
    }, timeoutMs);
  };
  arm();
  const params = ctx.params;
  const { upstreamToken, route } = progress.open(ctx.session, ctx.extra, params._meta?.progressToken, arm);
  try {
    const upstreamParams = {
      ...params,
      name: ctx.tool,
      ...(ctx.forwarded !== undefined ? { arguments: ctx.forwarded } : {}),
      _meta: { ...(params._meta ?? {}), progressToken: upstreamToken },
    };
    const result = await client.request({ method: 'tools/call', params: upstreamParams }, CallToolResultSchema, {
      signal: abort.signal,
      timeout: SDK_TIMEOUT_CEILING_MS,
    });
    if (route) await progress.settle(route);
    return result as CallToolResult;
  } catch (err) {
    if (route) await route.chain;
    if (signal.aborted) throw err;
    throw upstreamFailure(ctx, upstream, err, timedOut ? timeoutMs : undefined);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onDownstreamAbort);
    progress.close(upstreamToken);
  }
}

/**
 * What an error on a call's way means for the client: a timeout, a dropped connection, a protocol error
 * from the upstream (relayed as the same JSON-RPC error, once-prefixed), an unreachable server (reported
 * to its upstream, which reconnects), or any other failure.
 */
export function upstreamFailure(ctx: CallContext, upstream: Upstream, err: unknown, timedOutAfterMs?: number): UpstreamFailure {
  if (err instanceof UpstreamFailure) return err;
  const server = ctx.server;
  const tool = ctx.tool;
  if (timedOutAfterMs !== undefined) {
    return new UpstreamFailure(
      `Server "${server}" did not answer "${tool}" within ${Math.round(timedOutAfterMs / 1000)} s (timeout); the call was cancelled.`,
    );
  }
  if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) {
    return new UpstreamFailure(`Server "${server}" closed the connection during "${tool}" (it may have crashed); Spillway is reconnecting.`);
  }
  if (err instanceof McpError && err.code !== ErrorCode.InternalError && err.code !== ErrorCode.RequestTimeout) {
    return new UpstreamFailure(bareMessage(err), rpcError(err.code, bareMessage(err), err.data));
  }
  if (isUnreachable(err)) {
    const message = `Server "${server}" cannot be reached (${bareMessage(err)}); Spillway will reconnect.`;
    upstream.reportUnreachable(message);
    return new UpstreamFailure(message);
  }
  return new UpstreamFailure(`Server "${server}" failed on "${tool}": ${bareMessage(err)}`);
}
