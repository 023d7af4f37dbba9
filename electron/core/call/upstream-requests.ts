/**
 * Requests an upstream sends a client (sampling, elicitation, roots/list) and which session answers them.
 *
 * Such a request belongs to the call the upstream is serving, and must never reach another client: its
 * prompt, its question or its folders are that client's. But the request does not say which call it
 * serves: over stdio it is one more line on the pipe, and the SDK's HTTP client transport does not tell
 * which response stream it came on. So the hub attributes it only when that is certain: when exactly one
 * session (open, or closed with requests still in flight) has requests in flight to that upstream. It then
 * goes to that session, on the stream of its newest such request, even when that session cannot answer
 * (the upstream is told why). When several sessions have requests there it is refused: a guess would show
 * one client another's request.
 *
 * A request the client withdrew (cancelled, or timed out) still counts for a while (session.ts,
 * `withdraw`): most servers go on with a cancelled call, and what it asks afterwards must not reach the
 * one other client calling that server then. With another session's requests it makes "several"; alone
 * it is refused, since its client no longer waits for the answer. A restarted upstream drops what the
 * old connection was working on, so its withdrawn requests count no more.
 *
 * Roots follow the same rule: an upstream's roots/list is answered from the session whose call it is
 * attributed to, never from another client. Outside any call (server-filesystem asks right after
 * initialize, and again on roots/list_changed) it is answered with no roots, which tells a server to keep
 * the folders it was configured with; so a client's roots/list_changed is not passed on to upstreams
 * either, since what they would ask next is answered the same.
 */
import { ErrorCode, McpError, CreateMessageResultSchema, ElicitResultSchema, ListRootsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { HubEventInput } from '../../../shared/events.js';
import type { DownstreamSession } from '../downstream/session.js';
import type { UpstreamRequestKind } from '../upstream/upstream.js';
import { bareMessage, rpcError } from './relay-errors.js';

const RELAYED_REQUEST_TIMEOUT_MS = 10 * 60_000;

/**
 * Whose a request from an upstream is: one session's (and the request of it to relate to), or nobody's
 * for sure. 'several' with `withdrawnForMs`: one session calls there, and another's withdrawn request
 * there counts for that much longer; 'withdrawn': only withdrawn requests are there.
 */
export type Attribution =
  | { to: 'session'; session: DownstreamSession; relatedRequestId: string | number }
  | { to: 'nobody' }
  | { to: 'several'; withdrawnForMs?: number }
  | { to: 'withdrawn' };

export interface UpstreamRequestsDeps {
  sessions(): Iterable<DownstreamSession>;
  emit(event: HubEventInput): void;
}

export class UpstreamRequests {
  /** Closed sessions with requests in flight or withdrawn lately: what an upstream asks meanwhile may be theirs. */
  #closedWithCalls = new Set<DownstreamSession>();
  /** Requests each upstream has sent a client so far (see sentFrom). */
  readonly #sent = new Map<string, number>();

  constructor(private readonly deps: UpstreamRequestsDeps) {}

  /** The session a request from that upstream belongs to, when only one has requests in flight or withdrawn there. */
  attribute(serverId: string): Attribution {
    const now = performance.now();
    this.#forgetFinishedCalls(now);
    let found: { session: DownstreamSession; relatedRequestId: string | number; since: number } | undefined;
    const withdrawn: { session: DownstreamSession; until: number }[] = [];
    for (const s of [...this.deps.sessions(), ...this.#closedWithCalls]) {
      const until = withdrawnUntil(s, serverId, now);
      if (until !== undefined) withdrawn.push({ session: s, until });
      for (const [requestId, call] of s.inflight) {
        if (call.upstream !== serverId) continue;
        if (found && found.session !== s) return { to: 'several' };
        if (!found || (call.since ?? 0) >= found.since) found = { session: s, relatedRequestId: requestId, since: call.since ?? 0 };
      }
    }
    if (!found) return withdrawn.length > 0 ? { to: 'withdrawn' } : { to: 'nobody' };
    const others = withdrawn.filter((w) => w.session !== found.session);
    if (others.length > 0) return { to: 'several', withdrawnForMs: Math.max(...others.map((w) => w.until)) - now };
    return { to: 'session', session: found.session, relatedRequestId: found.relatedRequestId };
  }

  /**
   * The requests (roots/list, sampling/createMessage, elicitation/create) that upstream has sent a client
   * so far, answered or not. A result the upstream made while asking a client depends on that client's
   * answer (its folders, its model, its user), but the cache key is only server, tool and arguments:
   * cached, alice's roots would be given to bob. So a call notes this count when sent and is not cached
   * when it changed meanwhile. The count is per upstream, not per call: a request made during another call
   * to the same upstream keeps this one out of the cache too, which costs a cache entry at most and needs
   * no guess about which call a request belongs to.
   */
  sentFrom(serverId: string): number {
    return this.#sent.get(serverId) ?? 0;
  }

  /** Sends the upstream's request to the session it belongs to and returns the answer, or refuses it (a JSON-RPC error). */
  async route(
    serverId: string,
    kind: UpstreamRequestKind,
    request: { method: string; params?: Record<string, unknown> },
    extra: RequestHandlerExtra<never, never>,
  ): Promise<Record<string, unknown>> {
    // Counted first, also when no client can answer: what the upstream made of it is not cached.
    this.#sent.set(serverId, this.sentFrom(serverId) + 1);
    const owner = this.attribute(serverId);
    if (kind === 'roots' && owner.to === 'nobody') {
      const message = `${serverId} asked for roots/list while no app had a request in progress there: answered with no folders`;
      this.deps.emit({ type: 'log', level: 'info', server: serverId, message });
      return { roots: [] };
    }
    const target = targetOf(owner, serverId, kind, request.method);
    if ('refusal' in target) {
      this.deps.emit({ type: 'log', level: 'warn', server: serverId, message: `Server "${serverId}" sent ${request.method}: ${target.refusal}` });
      throw rpcError(ErrorCode.InvalidRequest, target.refusal);
    }
    const schema = kind === 'sampling' ? CreateMessageResultSchema : kind === 'elicitation' ? ElicitResultSchema : ListRootsResultSchema;
    this.deps.emit({ type: 'log', level: 'info', server: serverId, message: `${serverId} asked the client: ${request.method}` });
    try {
      return (await target.session.server.request(request as never, schema, {
        signal: extra.signal,
        relatedRequestId: target.relatedRequestId,
        timeout: RELAYED_REQUEST_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
      })) as Record<string, unknown>;
    } catch (err) {
      if (err instanceof McpError) throw rpcError(err.code, bareMessage(err), err.data);
      throw err;
    }
  }

  sessionClosed(session: DownstreamSession): void {
    const now = performance.now();
    this.#forgetFinishedCalls(now);
    if (owesAnswers(session, now)) this.#closedWithCalls.add(session);
  }

  /** The upstream is ready on a new connection: what sessions withdrew from the old one is not worked on any more. */
  upstreamReady(serverId: string): void {
    for (const s of [...this.deps.sessions(), ...this.#closedWithCalls]) s.withdrawn.delete(serverId);
    this.#forgetFinishedCalls(performance.now());
  }

  /** Closed sessions whose requests have finished, and whose withdrawn ones are past, own nothing an upstream may ask any more. */
  #forgetFinishedCalls(now: number): void {
    for (const s of this.#closedWithCalls) if (!owesAnswers(s, now)) this.#closedWithCalls.delete(s);
  }
}

/** Until when (performance.now()) the session's withdrawn requests there may still be worked on; undefined: none, or past (forgotten). */
function withdrawnUntil(session: DownstreamSession, serverId: string, now: number): number | undefined {
  const until = session.withdrawn.get(serverId);
  if (until === undefined || until > now) return until;
  session.withdrawn.delete(serverId);
  return undefined;
}

/** Whether an upstream may still send the session a request: it has requests in flight, or withdrawn ones not yet past. */
function owesAnswers(session: DownstreamSession, now: number): boolean {
  if (session.inflight.size > 0) return true;
  for (const serverId of [...session.withdrawn.keys()]) withdrawnUntil(session, serverId, now);
  return session.withdrawn.size > 0;
}

/** The session a request goes to, or why it goes to none. */
function targetOf(
  owner: Attribution,
  serverId: string,
  kind: UpstreamRequestKind,
  method: string,
): { session: DownstreamSession; relatedRequestId: string | number } | { refusal: string } {
  if (owner.to !== 'session') return { refusal: unattributed(owner, serverId, method) };
  const refusal = callerRefusal(owner.session, kind, method);
  return refusal ? { refusal } : owner;
}

/** Why a request no single session's call accounts for is refused. */
function unattributed(owner: Exclude<Attribution, { to: 'session' }>, serverId: string, method: string): string {
  if (owner.to === 'several' && owner.withdrawnForMs !== undefined) {
    return (
      `Spillway cannot tell whether this ${method} request is for the app now using "${serverId}" or for a request another ` +
      `app withdrew there (cancelled, or timed out), which "${serverId}" may still be working on; try again in ` +
      `${inAbout(owner.withdrawnForMs)}.`
    );
  }
  if (owner.to === 'several') {
    return (
      `Spillway cannot tell which of several connected apps this ${method} request is for (more than one has a request ` +
      `in progress at "${serverId}"); try again when only one is using "${serverId}".`
    );
  }
  if (owner.to === 'withdrawn') {
    return (
      `Spillway did not pass on this ${method} request: the app whose request to "${serverId}" it belongs to withdrew ` +
      'that request (cancelled it, or it timed out), so no app is waiting for its answer.'
    );
  }
  return (
    `Spillway cannot tell which app this ${method} request is for: no app has a request in progress at "${serverId}". ` +
    `Spillway passes it to an app only while that app's request to "${serverId}" is in progress.`
  );
}

/** A wait in whole seconds, or in whole minutes from two minutes on. */
function inAbout(ms: number): string {
  return ms < 120_000 ? `${Math.ceil(ms / 1000)} s` : `${Math.ceil(ms / 60_000)} min`;
}

/** Why the session a request belongs to cannot take it (closed, or without the capability); undefined: it can. */
function callerRefusal(session: DownstreamSession, kind: UpstreamRequestKind, method: string): string | undefined {
  const client = session.clientName ? `"${session.clientName}"` : 'that made the request';
  if (session.closed) return `The client ${client} disconnected before it could answer ${method}.`;
  if (session.can(kind)) return undefined;
  if (kind === 'roots') {
    return (
      `The client ${client} does not share its folders (roots), which ${method} asks for. Spillway never passes this ` +
      'request to another client; use a client that shares its folders if this server needs them.'
    );
  }
  return (
    `The client ${client} does not support ${kind}, which ${method} needs. Spillway never passes it to another ` +
    `client; use a client that supports ${kind} for this.`
  );
}
