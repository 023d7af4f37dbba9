/**
 * The tools/call pipeline for upstream tools, as the list of its stages. Request: refusal → compression
 * fields → PII masking (of the client's arguments) → policy arguments → cache. The upstream call
 * (timeout, progress, cancellation, error mapping). Result: materialize → cache → PII restore → shape
 * (pass/spill/truncate) → client-pipe guard → compression → the report (call events and the ledger).
 * Each stage lives in its own file here.
 */
import { ErrorCode, type CallToolRequest, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Settings } from '../../../shared/config.js';
import type { DownstreamExtra, DownstreamSession } from '../downstream/session.js';
import { isCancelled } from '../downstream/request-cancellation.js';
import { PiiPatternError } from '../pii/custom-patterns.js';
import { restore } from '../pii/pii-vault.js';
import type { CachedCall } from '../policy/call-cache.js';
import { noteMaskedCopy } from '../spill/result-preview.js';
import type { ShapedResult } from '../spill/shape-result.js';
import type { Upstream } from '../upstream/upstream.js';
import { applyPolicyArguments } from './call-arguments.js';
import { newCallContext, type CallContext, type Masking } from './call-context.js';
import { asIsReport, cancelledReport, errorReport, reportCall, reportStarted, shapeReport, type CallReport } from './call-report.js';
import { cacheFor, keepInCache, lookUp, sendAroundCache } from './cached-result.js';
import { hideInFailure, hideInResult } from './hidden-values.js';
import { exceedsClientPipe, guardClientPipe } from './client-pipe-guard.js';
import { takeCompressionRequest } from './compression-request.js';
import { CompressionStage } from './compression-stage.js';
import { maskResult, PiiMaskers, restoreDelivered, restorePii } from './pii-masking.js';
import { encodePassed, mayEncodePassed } from './result-encoding.js';
import { waitWithProgress, type ProgressRoutes } from './progress-routes.js';
import { refuse } from './refusal.js';
import type { CallOptions, RelayDeps } from './relay-contract.js';
import { errorResult, notRunningCall, rpcError, serverNamedIn, unavailableMessage, type NotRunningCall } from './relay-errors.js';
import { CallCancelled, callUpstream, UpstreamFailure, upstreamFailure } from './upstream-call.js';
import type { UpstreamRequests } from './upstream-requests.js';

export class ToolCallPipeline {
  readonly #pii: PiiMaskers;
  readonly #compression: CompressionStage;

  constructor(
    private readonly deps: RelayDeps,
    private readonly progress: ProgressRoutes,
    /** Requests upstreams sent a client: a call during which its upstream asked one is not cached. */
    private readonly clientRequests: Pick<UpstreamRequests, 'sentFrom'>,
  ) {
    this.#compression = new CompressionStage({ settings: deps.settings, counter: deps.counter, spilled: deps.spilled });
    this.#pii = new PiiMaskers(deps.piiDeadlineMs);
  }

  /**
   * Calls an upstream tool by its exposed name through the whole pipeline. Direct calls and
   * spillway__dispatch's `call` both come here.
   */
  async call(
    session: DownstreamSession,
    params: CallToolRequest['params'],
    extra: DownstreamExtra,
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    const deps = this.deps;
    let entry = deps.catalog.tool(params.name);
    // A call that waited for its server: cancelled meanwhile, it stopped waiting then and is not sent.
    let waited = false;
    if (entry?.kept && deps.untilStarted) {
      waited = true;
      // Known from the last run's catalog only: its upstream is still starting, so the call waits for it.
      const kept = entry;
      const untilStarted = deps.untilStarted;
      await waitWithProgress(extra, (onWait) => untilStarted(kept.serverId, onWait));
      // Gone once its upstream is up: unknown. Still not up: the call fails with the server's state.
      entry = deps.catalog.tool(params.name) ?? (deps.upstreams().get(kept.serverId)?.client ? undefined : kept);
    } else if (!entry) {
      // Not listed: a tool named for a server that is not running (yet) waits for it, or is told why.
      const server = serverNamedIn(params.name, deps.upstreams());
      if (server && !server.client) {
        waited = true;
        await this.#untilRunning(server, extra, server.config.timeoutMs ?? deps.settings().requestTimeoutMs, START_WAIT_MS);
        entry = deps.catalog.tool(params.name);
        if (!entry && isCancelled(extra)) throw this.#stoppedWaiting(params.name, server.id);
        const notRunning = entry ? undefined : notRunningCall(params.name, deps.upstreams().get(server.id), session.clientName);
        if (notRunning) return this.#notRunning(server.id, notRunning);
      }
    }
    if (!entry) {
      // Otherwise the log would show nothing of it: a stale tool list in the client is the usual cause.
      deps.emit({ type: 'log', level: 'warn', message: unknownToolMessage(params.name, session.clientName) });
      throw rpcError(ErrorCode.InvalidParams, `Unknown tool: ${params.name}`);
    }
    const refused = refuse(entry, deps.emit);
    if (refused) return refused;
    const settings = deps.settings();
    const ctx = newCallContext(session, params, extra, entry, deps.policy?.(entry), settings, options);
    if (waited && isCancelled(extra)) return this.#cancelledBeforeSent(ctx);

    // Request stages.
    takeCompressionRequest(ctx);
    // Masking comes before the policy's values: a hidden value or override reaches the upstream as the
    // user set it, never as a placeholder.
    const notMasked = this.#pii.maskArguments(ctx);
    if (notMasked !== undefined) return this.#refuseCall(ctx, notMasked);
    const misfit = applyPolicyArguments(ctx);
    if (misfit !== undefined) return this.#refuseCall(ctx, misfit);
    const cache = cacheFor(ctx, deps.cache, settings.paused);
    const hit = cache && lookUp(ctx, cache);
    let upstream = hit ? undefined : deps.upstreams().get(ctx.server);
    if (upstream && !upstream.client && upstream.reconnecting) {
      // Crashed or dropped, and tried again soon: the call waits for that try (the answer said so).
      await this.#untilRunning(upstream, extra, timeoutFor(ctx, upstream, settings));
      if (isCancelled(extra)) return this.#cancelledBeforeSent(ctx, 'reconnect');
      upstream = deps.upstreams().get(ctx.server);
    }
    if (!upstream?.client) {
      reportStarted(ctx, deps.emit);
      if (hit) return this.#fromCache(ctx, hit);
      return this.#failed(ctx, new UpstreamFailure(unavailableMessage(ctx.server, upstream)));
    }

    // The upstream call, then the result stages. The request is written first (callUpstream sends
    // before its first await): call.started is made while the server works on it. A call that may change
    // things drops its server's cached results around it (sendAroundCache).
    const asksBefore = this.clientRequests.sentFrom(ctx.server);
    const running = upstream;
    const timeoutMs = timeoutFor(ctx, running, settings);
    const { calling, ticket } = sendAroundCache(ctx, deps.cache, () => callUpstream(ctx, running, this.progress, timeoutMs));
    try {
      reportStarted(ctx, deps.emit);
      let result = await calling;
      // Long texts an upstream streamed to disk stay there for the shaper; masking and the paths that
      // deliver a result as it is need them read back. Such a result is not cached: the hub does not
      // hold it in memory.
      // A call that injected hidden values has them replaced in all of its result, so that is read back too.
      const hiding = ctx.hiding;
      const spooled = (cache || ctx.masking || hiding || settings.paused || result.isError) && deps.shaper.holdsSpooled(result);
      if (spooled && (ctx.masking || hiding || settings.paused || result.isError)) result = await deps.shaper.materialize(result);
      // Before anything keeps or shows it (the cache, a spilled copy, the log): the model never sees them.
      if (hiding) result = hideInResult(hiding, result);
      // A result made with a client's roots, sampling or elicitation answer is that client's: not cached,
      // or another client would be given it (UpstreamRequests.sentFrom).
      if (cache && !spooled && this.clientRequests.sentFrom(ctx.server) === asksBefore) keepInCache(ctx, cache, result, ticket);
      // The log says why a tool failed, as the upstream said it (before restoring: masked PII stays masked).
      const failure = failureText(result);
      // Restoring comes first on the result path: everything after sees what the client sent.
      result = restorePii(ctx, result);
      const report = settings.paused || result.isError ? asIsReport(result) : this.#shape(ctx, result);
      return reportCall(ctx, report instanceof Promise ? await report : report, deps.emit, deps.onCallFinished, failure);
    } catch (err) {
      calling.catch(() => undefined); // settled already, unless call.started failed before the wait
      if (isCancelled(ctx.extra)) {
        // The client cancelled (or its session closed): recorded as such; the SDK drops the response anyway.
        reportCall(ctx, cancelledReport(), deps.emit, deps.onCallFinished);
        throw err;
      }
      // A custom PII pattern ran out of time on the result: the server answered, so it is not its failure.
      if (err instanceof PiiPatternError) return this.#failed(ctx, new UpstreamFailure(this.#pii.resultFailure(ctx, err)));
      return this.#failed(ctx, upstreamFailure(ctx, upstream, err));
    }
  }

  /**
   * Shape (pass, spill or truncate), the client-pipe guard and compression; with maskResults on the
   * masked result, the client's values restored in what is delivered. A result that passes by its size
   * alone is reported at once (synchronously): no later stage has anything to do with it.
   */
  #shape(ctx: CallContext, result: CallToolResult): CallReport | Promise<CallReport> {
    const masking = ctx.masking?.maskResults ? ctx.masking : undefined;
    const input = masking ? maskResult(masking, result) : result;
    const shaped = this.deps.shaper.shape(input, ctx.resultPolicy, ctx);
    if (shaped instanceof Promise || masking || shaped.outcome.action !== 'pass' || exceedsClientPipe(ctx.kind, shaped.outcome.bytesDelivered)) {
      return this.#shapeStages(ctx, input, shaped, masking);
    }
    const report = shapeReport(shaped);
    // Passed as it came and unmasked: what is delivered is what the count counts.
    report.countsDelivered = true;
    // Tabular JSON may be shown as TOON (issue 18): only text that looks like it is parsed.
    if (mayEncodePassed(ctx.resultPolicy, report.delivered)) return encodePassed(report, ctx.resultPolicy, this.deps.counter);
    return report;
  }

  async #shapeStages(
    ctx: CallContext,
    input: CallToolResult,
    pending: ShapedResult | Promise<ShapedResult>,
    masking: Masking | undefined,
  ): Promise<CallReport> {
    const shaped = await guardClientPipe(ctx, input, await pending, this.deps.shaper);
    let report = shapeReport(shaped);
    if (ctx.resultPolicy.action === 'compress') report = await this.#compression.condense(ctx, shaped, report);
    if (masking) {
      report.delivered = restoreDelivered(masking, report.delivered);
      // The kept copy stays masked: the model is told, or it would grep the kept copy for a restored value.
      if (report.handle && masking.vault.size > 0) report.delivered = noteMaskedCopy(report.delivered);
    }
    // Passed whole (not masked: the restored values are the client's own): tabular JSON may be shown as TOON.
    else if (report.action === 'pass' && mayEncodePassed(ctx.resultPolicy, report.delivered)) {
      report = await encodePassed(report, ctx.resultPolicy, this.deps.counter);
    }
    return report;
  }

  /**
   * A cache hit: the raw upstream result shaped again under today's policy. Its placeholders carry the
   * tag of the call that stored it, so that call's vault (kept with the entry) restores them, not this
   * call's; the entry is keyed by the arguments, so they are this call's values too.
   */
  async #fromCache(ctx: CallContext, hit: CachedCall): Promise<CallToolResult> {
    const result = hit.vault ? restore(hit.result, hit.vault) : hit.result;
    let report: CallReport;
    try {
      report = result.isError ? asIsReport(result) : await this.#shape(ctx, result);
    } catch (err) {
      if (err instanceof PiiPatternError) return this.#failed(ctx, new UpstreamFailure(this.#pii.resultFailure(ctx, err)));
      throw err;
    }
    // A cached error result (cacheErrors) is still an error.
    if (report.action !== 'error') report.action = 'cache';
    report.savedMs = hit.durationMs;
    return reportCall(ctx, report, this.deps.emit, this.deps.onCallFinished, failureText(hit.result));
  }

  /**
   * A server not running when one of its tools is called, waited for (bounded by the call's timeout too):
   * one starting (or idle, on first use: started now) up to `startWaitMs`, one tried again soon after a
   * failure up to RETRY_WAIT_MS. A try due later is not waited for: the call is answered with why at once.
   */
  async #untilRunning(server: Upstream, extra: DownstreamExtra, timeoutMs: number, startWaitMs = RETRY_WAIT_MS): Promise<void> {
    const woken = server.wake();
    const starting = server.status === 'connecting';
    const boundMs = Math.min(starting ? startWaitMs : RETRY_WAIT_MS, timeoutMs);
    const dueInMs = server.nextTryInMs;
    if (dueInMs === undefined || dueInMs >= boundMs) return;
    const what = woken ? 'start (it starts on first use)' : starting ? 'start' : 'reconnect';
    this.deps.emit({ type: 'log', level: 'info', server: server.id, message: `A call waits for "${server.id}" to ${what}` });
    await waitWithProgress(extra, (onWait) => {
      onWait?.(woken ? `Starting ${server.id} (it starts on first use)…` : `Waiting for ${server.id} to ${starting ? 'start' : 'reconnect'}…`);
      return server.whenTried(boundMs);
    });
  }

  /**
   * A call its client cancelled (or whose session closed) while it waited for its server to start or
   * reconnect: it stopped waiting then, and is never sent (the user may have cancelled a write). Recorded
   * as cancelled; what it throws is dropped (a cancelled request is answered with nothing).
   */
  #cancelledBeforeSent(ctx: CallContext, what: 'start' | 'reconnect' = 'start'): never {
    reportStarted(ctx, this.deps.emit);
    reportCall(ctx, cancelledReport(), this.deps.emit, this.deps.onCallFinished);
    throw this.#stoppedWaiting(ctx.entry.name, ctx.server, what);
  }

  /** Said in the log of a call cancelled while it waited for its server; what the call throws. */
  #stoppedWaiting(name: string, server: string, what: 'start' | 'reconnect' = 'start'): CallCancelled {
    this.deps.emit({
      type: 'log',
      level: 'info',
      server,
      message: `A call of "${name}" was cancelled while it waited for "${server}" to ${what}; it was not sent (the ${what} goes on).`,
    });
    return new CallCancelled(server, name);
  }

  /** A tool of a server that is not running: said to the client (what to do) and in the log. */
  #notRunning(server: string, { message, log }: NotRunningCall): CallToolResult {
    this.deps.emit({ type: 'log', level: 'warn', server, message: log });
    return errorResult(message);
  }

  /** A failed call: reported as an error, answered with an error result, or thrown as a JSON-RPC error. */
  #failed(ctx: CallContext, failure: UpstreamFailure): CallToolResult {
    // The upstream's words may quote a hidden value ("invalid key …"): replaced, for the client and the log.
    if (ctx.hiding) failure = hideInFailure(ctx.hiding, failure);
    const result = errorResult(failure.message);
    reportCall(ctx, errorReport(result, failure.rpc !== undefined), this.deps.emit, this.deps.onCallFinished, failure.message);
    if (failure.rpc) throw failure.rpc;
    return result;
  }

  /**
   * A call not made because its arguments could not be masked, or its policy's value no longer fits the
   * tool: said to the client and in the log.
   */
  #refuseCall(ctx: CallContext, message: string): CallToolResult {
    this.deps.emit({ type: 'log', level: 'error', server: ctx.server, message });
    return errorResult(message);
  }
}

/** The longest a call waits for a failed server's next try (its own timeout bounds it too). */
export const RETRY_WAIT_MS = 5000;
/** The longest a call of a tool not listed waits for its server to start (as long as for a kept tool). */
export const START_WAIT_MS = 30_000;

/** The most of a failed result's text the log keeps (as much as a call's arguments preview). */
const FAILURE_TEXT_MAX = 300;

/**
 * What an error result told the client, on one short line, for its `call.finished` event (the event log
 * masks secrets in it as in every event); undefined for a result that is not an error or has no text.
 */
function failureText(result: CallToolResult): string | undefined {
  if (!result.isError) return undefined;
  let text = '';
  for (const block of result.content ?? []) {
    if (block.type !== 'text') continue;
    text += ` ${block.text.slice(0, FAILURE_TEXT_MAX + 1)}`;
    if (text.length > FAILURE_TEXT_MAX * 2) break;
  }
  text = text.replace(/\s+/g, ' ').trim();
  if (!text) return undefined;
  return text.length > FAILURE_TEXT_MAX ? `${text.slice(0, FAILURE_TEXT_MAX)}…` : text;
}

/** The log line of a call to a tool no server offers. */
function unknownToolMessage(name: string, client: string | undefined): string {
  return (
    `${client ?? 'A client'} called the tool "${name}", which no server in Spillway offers now, so the call failed. ` +
    `The client's list of tools may be out of date: reload its tools or restart it, and check in Servers that the tool's server is on.`
  );
}

/** The call's timeout: the tool's policy, else the server's config, else the settings. */
function timeoutFor(ctx: CallContext, upstream: Upstream, settings: Settings): number {
  return ctx.values?.timeoutMs ?? upstream.config.timeoutMs ?? settings.requestTimeoutMs;
}
