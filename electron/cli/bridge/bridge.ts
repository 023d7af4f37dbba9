/**
 * `spillway bridge`: what a stdio-only client (Claude Desktop) runs. Relays this process's stdin/stdout
 * to the hub — over the bridge socket where it can (close to a byte pipe), over Streamable HTTP otherwise —
 * and survives the hub restarting: calls in flight fail once, the session goes on (issue 6, "The bridge").
 *
 * Lines are forwarded as the raw bytes they arrived as. Each is JSON-parsed only to learn what the bridge
 * must track: the client's initialize/initialized (replayed to a new hub), the ids of requests in flight
 * both ways, log level and subscriptions. stdout carries JSON-RPC only; diagnostics go to stderr.
 */
import { CLIENT_MESSAGE_MAX_BYTES, CLIENT_PIPE_MAX_BYTES, clientMessageTooLarge } from '../../../shared/limits.js';
import { LineFramer, oversizedRequestId, oversizedResponseId, type OversizedMessageError } from '../../core/wire/line-framer.js';
import { withBounds, type BridgeOptions, type Bounds } from './bridge-options.js';
import { findHub } from './find-hub.js';
import { refusal, type HubLink, type HubLinkEvents, type Undelivered } from './hub-link.js';
import type { HubStart } from './launcher.js';
import { bigLineId, errorLine, isRequest, isResponse, jsonLine, peek, type Id, type Peek } from './messages.js';
import { ProgressFence } from './progress-fence.js';
import { SessionReplay } from './session-replay.js';
import { ToolsWait } from './tools-wait.js';

/** Lines up to this size are JSON-parsed to find their id; bigger ones are read at their edges only. */
const PARSE_LIMIT = 64 * 1024;
const HUB_LOST = 'Spillway restarted; please retry';

/** The relay itself; `run()` resolves with the exit code when the client closes stdin (or start fails). */
export class Bridge {
  readonly #o: BridgeOptions & Bounds;
  #link: HubLink | undefined;
  #ready = false;
  #closed = false;
  /** Client messages waiting for a ready hub (during start, reconnect and replay). */
  #queue: { line: Buffer; message: Peek | undefined }[] = [];
  /** After a failed wait, calls fail at once instead of queueing until the hub is back. */
  #down = false;
  /** Client requests the hub has not answered. */
  readonly #inflight = new Set<Id>();
  /** Hub requests (sampling, roots, elicitation) the client has not answered. */
  readonly #hubRequests = new Set<Id>();
  readonly #session = new SessionReplay();
  /** After a restart: the calls of the outage wait for the new hub's tools. */
  #toolsWait: ToolsWait | undefined;
  /** Places where another Spillway answered (said once each). */
  readonly #foreign = new Set<string>();
  #hubBlocked = false;
  #clientBlocked = false;
  /** Set once the client closed stdin: the bridge ends when every request it sent is answered (or at its bound). */
  #closing: NodeJS.Timeout | undefined;
  readonly #fence = new ProgressFence(
    (raw) => this.#toClient(raw),
    () => this.#endIfAnswered(),
  );
  #exit!: (code: number) => void;
  // The limit the hub puts on a client's message, kept here too: an oversized line is skipped as it arrives
  // (never held whole, never sent on); a request among them is answered with the limit, an answer among
  // them reaches the hub as an error answer with the limit (#clientOversized).
  readonly #fromClient = new LineFramer({
    maxMessageBytes: CLIENT_MESSAGE_MAX_BYTES,
    onLine: (raw) => this.#clientLine(raw),
    onError: (error) => this.#clientOversized(error),
  });
  /** Links given up (lost, or found after the client left): whatever they still report is ignored. */
  readonly #dropped = new WeakSet<HubLink>();
  readonly #linkEvents: HubLinkEvents = {
    line: (link, raw, message) => void (this.#dropped.has(link) || this.#hubLine(raw, message)),
    oversized: (link, bytes, id) => void (this.#dropped.has(link) || this.#oversized(bytes, id)),
    unsent: (link, raw, message, error, fate) => this.#unsent(link, raw, message, error, fate),
    lost: (link) => this.#lost(link),
    log: (line) => this.#o.log(line),
  };

  constructor(options: BridgeOptions) {
    this.#o = withBounds(options);
  }

  run(): Promise<number> {
    const done = new Promise<number>((resolve) => (this.#exit = resolve));
    const { input, output } = this.#o;
    input.on('data', (chunk: Buffer) => this.#fromClient.push(chunk));
    input.once('end', () => this.#clientEnded());
    output.on('error', () => this.close(0)); // the client is gone (EPIPE)
    void this.#connect(true);
    return done;
  }

  close(code: number): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#closing);
    this.#drop(this.#link);
    this.#link = undefined;
    // Release stdin so the process can end on its own once stdout is flushed.
    this.#o.input.destroy();
    this.#exit(code);
  }

  /** The client closed stdin: its requests still get their answers (as a stdio server gives them), then the bridge ends. */
  #clientEnded(): void {
    if (this.#closed) return;
    this.#closing = setTimeout(() => {
      const n = this.#inflight.size;
      this.#o.log(
        `spillway bridge: the client closed its input; ending with ${n} request${n === 1 ? '' : 's'} unanswered after ${Math.round(this.#o.closingWaitMs / 1000)} s`,
      );
      this.close(0);
    }, this.#o.closingWaitMs);
    this.#endIfAnswered();
  }

  /** After the client closed stdin: ends once every request it sent is answered and written. */
  #endIfAnswered(): void {
    if (this.#closing && this.#inflight.size === 0 && !this.#fence.holding) this.close(0);
  }

  // ── client → hub ───────────────────────────────────────────────────────────────────────────
  #clientLine(raw: Buffer): void {
    const m = peek(raw);
    if (this.#down && !this.#link) {
      // Waiting was given up: answer at once rather than queue without bound.
      if (isRequest(m)) this.#toClient(errorLine(m.id, 'Spillway is not running; start the Spillway app and retry'));
      return;
    }
    if (isRequest(m)) {
      this.#inflight.add(m.id);
      this.#session.clientRequest(m);
    } else if (m?.method === 'notifications/initialized') {
      this.#session.clientInitialized();
    } else if (m?.method === 'notifications/cancelled') {
      this.#inflight.delete(m.params?.requestId as Id);
    } else if (isResponse(m)) {
      // An answer to a hub that has since gone away would confuse the new one.
      if (!this.#hubRequests.delete(m.id)) return;
    }
    if (this.#ready && this.#link) this.#sendToHub(raw, m);
    else this.#queue.push({ line: raw, message: m });
  }

  #sendToHub(raw: Buffer, m: Peek | undefined): void {
    const link = this.#link!;
    if (!link.send(raw, m) && !this.#hubBlocked) {
      this.#hubBlocked = true;
      this.#o.input.pause();
      link.onDrain(() => link === this.#link && this.#unblockHub());
    }
  }

  /** Reads the client again: the hub took what it was sent, or is gone (a lost socket never drains). */
  #unblockHub(): void {
    if (!this.#hubBlocked) return;
    this.#hubBlocked = false;
    if (!this.#closed) this.#o.input.resume();
  }

  // ── hub → client ───────────────────────────────────────────────────────────────────────────
  #hubLine(raw: Buffer, parsed: Peek | undefined): void {
    this.#relayHubLine(raw, parsed);
    this.#endIfAnswered();
  }

  #relayHubLine(raw: Buffer, parsed: Peek | undefined): void {
    let m = parsed;
    let id: Id | undefined;
    // A big result: its id is at one of its ends; parsing megabytes would cost more than the hop.
    if (!m && raw.length > PARSE_LIMIT) id = bigLineId(raw);
    if (id === undefined) {
      m ??= peek(raw);
      if (isResponse(m)) id = m.id;
      else if (isRequest(m)) this.#hubRequests.add(m.id);
      else if (m?.method === 'notifications/tools/list_changed') this.#toolsWait?.changed();
    }
    if (id !== undefined) {
      const reply = this.#session.takeReply(id);
      if (reply) return reply(m ?? peek(raw) ?? {});
      this.#inflight.delete(id);
      if (this.#session.initializeAnswered(id, m)) {
        m ??= peek(raw);
        const version = m?.result?.protocolVersion;
        if (typeof version === 'string') this.#link?.setProtocolVersion?.(version);
      }
    }
    this.#fence.deliver(raw, m?.method === 'notifications/progress', id !== undefined);
  }

  /** A hub message too big for a stdio client: a response becomes an error for its id, anything else is dropped. */
  #oversized(bytes: number, id: Id | undefined): void {
    const mib = (bytes / 1024 / 1024).toFixed(1);
    const limit = CLIENT_PIPE_MAX_BYTES / 1024 / 1024;
    this.#o.log(
      `spillway bridge: a ${mib} MiB message from the hub is over the ${limit} MiB stdio limit; ${id === undefined ? 'dropped' : 'replaced by an error'}`,
    );
    // An answer to the bridge's own request is dropped with it: that request is given up.
    if (id === undefined || this.#session.takeReply(id)) return;
    this.#inflight.delete(id);
    const advice = 'Turn on spilling for this tool in Spillway, or ask for less.';
    this.#toClient(errorLine(id, `The result is ${mib} MiB, more than a stdio client accepts in one message (${limit} MiB). ${advice}`));
    this.#endIfAnswered();
  }

  /**
   * A client line over the limit, skipped: a request is answered with the limit. An answer to a hub request
   * (sampling, elicitation, roots/list) goes on to the hub as a small error answer of the same id naming the
   * limit, so the hub fails that request, and the call that asked, at once instead of after its 10 minutes.
   */
  #clientOversized(error: OversizedMessageError): void {
    const id = oversizedRequestId(error);
    const answered = id === undefined ? oversizedResponseId(error) : undefined;
    const fate = id !== undefined ? '; answered with an error' : answered !== undefined ? '; the hub was sent an error for it' : '';
    this.#o.log(`spillway bridge: dropped a ${error.bytes}-byte message from the client (over the limit)${fate}`);
    if (id !== undefined) this.#toClient(errorLine(id, clientMessageTooLarge(error.bytes), -32600));
    // Through the client's own path: dropped, as any answer is, when the hub that asked has gone away.
    else if (answered !== undefined) this.#clientLine(errorLine(answered, clientMessageTooLarge(error.bytes), -32600));
  }

  #toClient(raw: Buffer): void {
    if (this.#closed) return;
    if (!this.#o.output.write(raw) && this.#link && !this.#clientBlocked) {
      // The client reads slower than the hub writes: hold the hub back rather than buffer without bound.
      const link = this.#link;
      this.#clientBlocked = true;
      link.pause();
      this.#o.output.once('drain', () => {
        this.#clientBlocked = false;
        link.resume();
      });
    }
  }

  // ── the hub connection ─────────────────────────────────────────────────────────────────────
  async #connect(first: boolean): Promise<void> {
    const began = Date.now();
    let delay = 25;
    let launch: HubStart | undefined;
    let started = false;
    /** Why the hub this bridge started could not start, in its own words. */
    let failure: string | undefined;
    let reported = false;
    let wake: (() => void) | undefined;
    while (!this.#closed) {
      const link = await this.#open().catch((err: Error) => {
        // A hub that refuses our token will not change its mind: say why, and end.
        this.#giveUp(refusal(err, this.#o.tokenFromEnv));
        this.close(1);
        return undefined;
      });
      if (this.#closed) return this.#drop(link);
      if (link) {
        launch?.dispose();
        return this.#attach(link);
      }
      const waited = Date.now() - began;
      if (!started && this.#o.startHub && waited >= (first ? 0 : this.#o.restartGraceMs)) {
        started = true;
        this.#o.log('spillway bridge: Spillway is not running; starting it');
        launch = await Promise.resolve(this.#o.startHub()).then(
          (l) => l ?? undefined,
          (err: Error) => {
            failure = `could not run it: ${err.message}`;
            return undefined;
          },
        );
        void launch?.failed.then((why) => {
          failure = why;
          wake?.();
        });
      }
      // The bound counts from when the bridge starts a hub (or would): with --no-start, the first look decides.
      const bound = first ? (this.#o.startHub ? this.#o.timeoutMs : 0) : this.#o.restartGraceMs + this.#o.timeoutMs;
      if (!reported && (failure !== undefined || waited >= bound)) {
        reported = true;
        const why =
          failure !== undefined
            ? `Spillway could not start: ${failure}`
            : this.#o.startHub
              ? `Spillway did not start within ${Math.round(this.#o.timeoutMs / 1000)} s (no hub answers on ${this.#o.socketPath}).`
              : `Spillway is not running (nothing answers on ${this.#o.socketPath}), and --no-start was given: start the Spillway app, then retry.`;
        this.#giveUp(why);
        if (first) return this.close(1);
        this.#endIfAnswered();
      }
      // Never past the bound: the client hears within it (a failed start wakes this at once).
      const pause = reported ? delay : Math.max(0, Math.min(delay, bound - (Date.now() - began)));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pause);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
      delay = Math.min(delay * 2, reported ? 2000 : 500);
    }
  }

  /** Stops queueing: every waiting call gets `why` as its error, and so will new ones until a hub is back. */
  #giveUp(why: string): void {
    this.#o.log(`spillway bridge: ${why}`);
    this.#down = true;
    // Queued requests are in #inflight too (they count from the moment the client sent them).
    this.#queue = [];
    for (const id of this.#inflight) this.#toClient(errorLine(id, why));
    this.#inflight.clear();
  }

  /** This folder's hub on the socket if it answers there, else over HTTP; undefined if neither. */
  #open(): Promise<HubLink | undefined> {
    return findHub({ ...this.#o, events: this.#linkEvents, notOurs: this.#foreign });
  }

  #attach(link: HubLink): void {
    this.#link = link;
    this.#down = false;
    this.#o.log(`spillway bridge: connected to Spillway (${link.kind})`);
    // A new hub after the first: introduce the client again as it introduced itself, hiding the answers,
    // and tell the client its lists may have changed (the new hub only announces changes from now on).
    if (this.#session.started) {
      this.#session.replay(link, (changed) => {
        for (const method of changed) this.#fence.deliver(jsonLine({ jsonrpc: '2.0', method }), false, false);
        this.#awaitTools(link);
      });
    } else this.#flush();
  }

  /** Holds the calls of the outage until the new hub lists the tools they name (bounded; issue 13, item 7). */
  #awaitTools(link: HubLink): void {
    const calls = this.#queue.filter((q) => q.message?.method === 'tools/call' && typeof q.message.params?.name === 'string');
    if (calls.length === 0) return this.#flush();
    const wait = new ToolsWait({
      needed: new Set(calls.map((q) => q.message!.params!.name as string)),
      calls: calls.length,
      list: (cursor) => this.#session.ask(link, 'tools/list', cursor === undefined ? {} : { cursor }),
      timeoutMs: this.#o.toolsWaitMs,
      log: this.#o.log,
      done: () => {
        if (this.#toolsWait !== wait) return;
        this.#toolsWait = undefined;
        if (link === this.#link) this.#flush();
      },
    });
    this.#toolsWait = wait;
    wait.start();
  }

  #flush(): void {
    this.#ready = true;
    for (const q of this.#queue.splice(0)) this.#sendToHub(q.line, q.message);
  }

  /** A client message reached no live session: only what no hub took waits for the next (never run twice). */
  #unsent(link: HubLink, raw: Buffer, m: Peek, error: Error, fate: Undelivered): void {
    if (link !== this.#link) return;
    this.#o.log(`spillway bridge: HTTP send failed: ${error.message}`);
    const own = isRequest(m) && !this.#session.awaits(m.id);
    if (fate === 'refused') {
      // The hub is up: nothing is lost, the client hears why (re-sending would only be refused again).
      if (own && this.#inflight.delete(m.id)) this.#toClient(errorLine(m.id, `Spillway refused the request: ${error.message}`));
      return this.#endIfAnswered();
    }
    // Still in #inflight: #lost spares what is queued, and it fails once if waiting is given up.
    if (fate === 'not-sent' && own) this.#queue.unshift({ line: raw, message: m });
    this.#lost(link);
  }

  /** The hub went away: fail what it was doing, then wait for the next one. */
  #lost(link: HubLink): void {
    if (link !== this.#link || this.#closed) return;
    // Closed, so an HTTP transport stops retrying its streams; whatever it still reports is ignored.
    this.#drop(link);
    this.#link = undefined;
    this.#ready = false;
    this.#unblockHub();
    this.#toolsWait?.cancel();
    this.#toolsWait = undefined;
    this.#session.forgetReplies();
    this.#hubRequests.clear();
    // Calls still queued never reached that hub: they wait for the next one; the rest fail once.
    const queued = new Set(this.#queue.filter((q) => isRequest(q.message)).map((q) => q.message!.id as Id));
    for (const id of this.#inflight) {
      if (queued.has(id)) continue;
      this.#toClient(errorLine(id, HUB_LOST));
      this.#inflight.delete(id);
    }
    this.#o.log('spillway bridge: lost the connection to Spillway; reconnecting');
    this.#endIfAnswered();
    if (!this.#closed) void this.#connect(false);
  }

  #drop(link: HubLink | undefined): void {
    if (link) this.#dropped.add(link);
    link?.close();
  }
}
