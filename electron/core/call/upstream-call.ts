/**
 * The upstream call of a tools/call: our own timeout (reset by every progress notification, whether or
 * not the client asked for progress), the client's cancellation passed on, progress relayed back on the
 * client's request, and what a failure means for the client.
 */
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isCancelled, whenCancelled } from '../downstream/request-cancellation.js';
import type { Upstream } from '../upstream/upstream.js';
import { isSessionLost } from '../upstream/connection-watch.js';
import type { CallContext } from './call-context.js';
import type { ProgressRoutes } from './progress-routes.js';
import { bareMessage, isUnreachable, rpcError, unavailableMessage } from './relay-errors.js';

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

/** A call cancelled by its client before it was sent to its server: it was not sent, and its answer is dropped. */
export class CallCancelled extends Error {
  constructor(server: string, tool: string) {
    super(`The client cancelled "${tool}" before it was sent to server "${server}"; it did not run.`);
  }
}

/**
 * Sends the call to its upstream and waits for its result and for the progress relayed before it.
 * Throws an UpstreamFailure, or what the SDK threw when the client cancelled (its answer is dropped anyway).
 * The request is written before anything else is set up (the timer, the cancellation listener): nothing
 * can answer it before this turn of the event loop ends, and the server starts on it meanwhile.
 * A call the client cancelled before it got here (while it waited for its server to start or reconnect)
 * is never sent: the user may have cancelled a write. It throws CallCancelled instead.
 */
export async function callUpstream(ctx: CallContext, upstream: Upstream, progress: ProgressRoutes, timeoutMs: number): Promise<CallToolResult> {
  if (isCancelled(ctx.extra)) throw new CallCancelled(ctx.server, ctx.tool);
  const client = upstream.client!;
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      call.cancel(new Error('timeout'));
    }, timeoutMs);
  };
  const params = ctx.params;
  const { upstreamToken, route } = progress.open(ctx.session, ctx.extra, params._meta?.progressToken, arm, ctx.hiding);
  const call = client.startToolCall(
    {
      ...params,
      name: ctx.tool,
      ...(ctx.forwarded !== undefined ? { arguments: ctx.forwarded } : {}),
      _meta: { ...(params._meta ?? {}), progressToken: upstreamToken },
    },
    SDK_TIMEOUT_CEILING_MS,
  );
  ctx.session.waitsOn(ctx.extra.requestId, ctx.server);
  arm();
  let cancelled = false;
  const stopListening = whenCancelled(ctx.extra, (reason) => {
    cancelled = true;
    call.cancel(reason ?? new Error('cancelled by the client'));
  });
  try {
    const result = await call.result;
    if (route) await progress.settle(route);
    return result;
  } catch (err) {
    // Withdrawn, the call may still be worked on: what the server asks for it meanwhile is this client's.
    if (cancelled || timedOut) ctx.session.withdraw(ctx.extra.requestId, timeoutMs);
    if (route) await route.chain;
    if (cancelled || ctx.signal.aborted) throw err;
    throw upstreamFailure(ctx, upstream, err, timedOut ? timeoutMs : undefined);
  } finally {
    clearTimeout(timer);
    stopListening();
    progress.close(upstreamToken);
  }
}

/**
 * What an error on a call's way means for the client: a timeout, a dropped connection, a protocol error
 * from the upstream (relayed as the same JSON-RPC error, once-prefixed), an unreachable server or a lost
 * HTTP session (reported to its upstream, which reconnects), or any other failure.
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
  // The server wants a sign-in (a 401, or a 403 asking for more scope): say what to do, not what broke.
  if (upstream.status === 'needs-sign-in') return new UpstreamFailure(unavailableMessage(server, upstream));
  if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) {
    if (upstream.stopping) return new UpstreamFailure(`Server "${server}" was stopped during "${tool}"; the call did not finish.`);
    // The upstream heard of the close first: it has decided whether it tries again (a crash loop stops it).
    const next = upstream.reconnecting
      ? 'Spillway is reconnecting.'
      : `Spillway does not restart it now: ${upstream.error ?? `status ${upstream.status}`}.`;
    return new UpstreamFailure(`Server "${server}" closed the connection during "${tool}" (it may have crashed); ${next}`);
  }
  // A 404 for the session (the server restarted, or forgot it): the call did not run; a new session is needed.
  if (upstream.config.type !== 'stdio' && isSessionLost(err)) {
    upstream.reportUnreachable(`the server no longer knows Spillway's session (HTTP 404; it may have restarted)`);
    return new UpstreamFailure(
      `Server "${server}" no longer knows Spillway's session (it may have restarted), so "${tool}" did not run. Spillway is opening a new session: call it again in a moment.`,
    );
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
