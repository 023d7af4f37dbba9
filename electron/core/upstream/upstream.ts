/**
 * One long-lived connection to one upstream MCP server: connects on its own, keeps its lists, reconnects
 * with backoff after a crash or a drop; after a crash loop a stdio server waits for the user (retry-plan.ts).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Implementation, Prompt, Resource, ResourceTemplate, ServerCapabilities, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ServerConfig } from '../../../shared/config.js';
import type { UpstreamStatus } from '../../../shared/events.js';
import { ActivityTransport } from './activity-transport.js';
import { IdleTimer } from './idle-timer.js';
import { DirectToolCalls } from './direct-tool-calls.js';
import type { UpstreamClient } from './upstream-client.js';
import { newUpstreamClient } from './upstream-handlers.js';
import { isSignInNeeded, signInMessage } from './sign-in-needed.js';
import { describeConnectError, withServerOutput } from './connect-error.js';
import { watchConnection } from './connection-watch.js';
import { loadLists } from './upstream-lists.js';
import { retryPlan } from './retry-plan.js';
import { TryWaiters } from './try-waiters.js';
import { downloadsOnFirstStart } from './start-plan.js';
import type { ListProblem } from '../../../shared/api.js';
import type { ExitStatus } from './stdio-transport.js';
import type { UpstreamHooks, UpstreamOptions, UpstreamTransportHandle } from './upstream-hooks.js';

export type { UpstreamHooks, UpstreamOptions, UpstreamRequestKind, UpstreamTransportHandle } from './upstream-hooks.js';

export class Upstream {
  status: UpstreamStatus = 'stopped';
  error: string | undefined;
  tools: Tool[] = [];
  resources: Resource[] = [];
  resourceTemplates: ResourceTemplate[] = [];
  prompts: Prompt[] = [];
  /** Lists the server declares but refused at the last read (served empty), or a failed refresh: the window shows them. */
  listProblems: ListProblem[] = [];
  capabilities: ServerCapabilities | undefined;
  serverInfo: Implementation | undefined;
  restarts = 0;
  /** Stopped after this long without a call, until the next call starts it (0: never; start-plan.ts). */
  idleStopMs = 0;

  #client: UpstreamClient | undefined;
  #handle: UpstreamTransportHandle | undefined;
  #stopping = false;
  #restarting = false;
  #generation = 0;
  #failures: number[] = []; // since the server last served a call: a call that crashes it is not a crash loop
  #triesSinceReady = 0; // failed tries since it was last ready: spaces out a network server's tries
  #retryTimer: NodeJS.Timeout | undefined;
  #retryAt = 0; // when the scheduled try is due (this.#opts.now() time), while #retryTimer is set
  readonly #tryWaiters = new TryWaiters(); // calls waiting for the try on its way to end (whenTried)
  #stderr: string[] = [];
  #started = false;
  #idle: IdleTimer | undefined;
  /** The last connection's close (a stdio child's exit). */
  #closing: Promise<void> = Promise.resolve();
  /** This connect's 401 asked for a sign-in: its failure is not a crash (requireSignIn). */
  #signInWanted = false;
  readonly #opts: Required<UpstreamOptions>;

  constructor(
    readonly id: string,
    public config: ServerConfig,
    private readonly hooks: UpstreamHooks,
    options: UpstreamOptions,
  ) {
    this.#opts = {
      connectTimeoutMs: 30_000,
      downloadGraceMs: 180_000,
      crashLoopFailures: 5,
      crashWindowMs: 120_000,
      backoffBaseMs: 500,
      backoffMaxMs: 30_000,
      networkRetryMaxMs: 60_000,
      now: Date.now,
      ...options,
    };
  }

  get client(): UpstreamClient | undefined {
    return this.status === 'ready' ? this.#client : undefined;
  }

  /** The child's pid for stdio servers while connected. */
  get pid(): number | undefined {
    return (this.#handle?.transport as { pid?: number } | undefined)?.pid;
  }

  stderrTail(): string[] {
    return this.#handle?.stderrTail?.() ?? [...this.#stderr];
  }

  /** Starts connecting in the background; never throws. */
  start(): void {
    if (!this.config.enabled) {
      this.#setStatus('disabled');
      return;
    }
    this.#stopping = false;
    this.#failures = [];
    this.#triesSinceReady = 0;
    void this.#connect();
  }

  /** Not started now: status 'idle' until `wake` (start on first use; the kept lists serve meanwhile). */
  park(): void {
    this.#setStatus(this.config.enabled ? 'idle' : 'disabled');
  }

  /** Starts a server that is idle (parked or stopped for want of calls); false when it was not idle. */
  wake(): boolean {
    if (this.status !== 'idle') return false;
    this.start();
    return true;
  }

  /** Resolves once the last connection closed (a stdio server's process is gone). */
  closed(): Promise<void> {
    return this.#closing;
  }

  /** A request found the server unreachable (HTTP): mark it down and reconnect with backoff. */
  reportUnreachable(message: string): void {
    if (this.status !== 'ready' || this.#stopping) return;
    const generation = ++this.#generation;
    const client = this.#client;
    void client?.close().catch(() => undefined);
    this.#onDropped(generation, message, true);
  }

  /**
   * The server wants a sign-in (its auth provider was asked for one): a connect under way ends in
   * 'needs-sign-in' instead of 'error'; a connected server (a refresh failed) drops to it and waits.
   */
  requireSignIn(): void {
    if (this.status === 'connecting') this.#signInWanted = true;
    if (this.status !== 'ready' || this.#stopping) return;
    const generation = ++this.#generation;
    void this.#client?.close().catch(() => undefined);
    this.#onSignInNeeded(generation);
  }

  /** Connects once and resolves when ready or failed (used by `upstreams.test`). */
  async connectOnce(): Promise<void> {
    this.#stopping = false;
    await this.#connect(false);
  }

  async stop(): Promise<void> {
    this.#restarting = false;
    this.#stopping = true;
    const closing = this.#letGo();
    if (closing) await closing;
    this.#setStatus(this.config.enabled ? 'stopped' : 'disabled');
  }

  /** Idle stop: the connection closes (the child ends), 'idle' at once so the kept lists serve before the catalog rebuilds. */
  #sleep(): void {
    void this.#letGo();
    this.#setStatus('idle');
  }

  /** Drops the connection, its lists and any retry; returns the close under way (a stdio child's exit), if any. */
  #letGo(): Promise<void> | undefined {
    this.#generation++;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#idle?.cancel();
    this.#idle = undefined;
    const client = this.#client;
    this.#client = undefined;
    this.#handle = undefined;
    this.#clearLists();
    return client && (this.#closing = client.close().catch(() => undefined));
  }

  /** With idle stop on: the transport as seen through what keeps the server busy, and its idle timer. */
  #watch(transport: Transport, generation: number): Transport {
    this.#idle?.cancel();
    this.#idle = undefined;
    if (this.idleStopMs <= 0) return transport;
    const activity = new ActivityTransport(transport, () => idle.touch());
    const idle = new IdleTimer({
      ms: this.idleStopMs,
      busy: () => activity.busy,
      onIdle: () => {
        if (generation === this.#generation && this.status === 'ready') this.#sleep();
      },
      now: this.#opts.now,
    });
    this.#idle = idle;
    return activity;
  }

  /**
   * Stops and starts again; a stop or start that comes while it stops wins (the hub stopping meanwhile).
   * 'stopped' then 'connecting' are told at once, before the old process is gone: its last lists stand
   * in until the new one is ready (see `restarting`), and a call made meanwhile waits for the new one.
   */
  async restart(): Promise<void> {
    const enabled = this.config.enabled;
    this.#stopping = true;
    const closing = enabled ? this.#letGo() : this.stop();
    const generation = this.#generation;
    if (enabled) {
      this.#restarting = true;
      this.#setStatus('stopped');
      this.#setStatus('connecting');
    }
    await closing;
    if (generation !== this.#generation) return;
    this.restarts++;
    this.start();
  }

  /** Whether a restart is under way: from Restart until the new process is ready or has failed. */
  get restarting(): boolean {
    return this.#restarting;
  }

  /** Whether a new connection is on its way (connecting, or a retry is scheduled). */
  get reconnecting(): boolean {
    return this.status === 'connecting' || this.#retryTimer !== undefined;
  }

  /** How long until the scheduled try (0 when it is due or connecting); undefined when none is on its way. */
  get nextTryInMs(): number | undefined {
    if (this.status === 'connecting') return 0;
    return this.#retryTimer === undefined ? undefined : Math.max(0, this.#retryAt - this.#opts.now());
  }

  /**
   * Resolves once the try on its way (connecting, or scheduled) has ended, ready or not, or the server
   * was stopped; at once when none is on its way; after `timeoutMs` at the latest.
   */
  whenTried(timeoutMs: number): Promise<void> {
    return this.reconnecting ? this.#tryWaiters.wait(timeoutMs) : Promise.resolve();
  }

  /** Whether it was stopped (by the user, a config change or the hub) and not started since. */
  get stopping(): boolean {
    return this.#stopping;
  }

  #clearLists(): void {
    const had = this.tools.length + this.resources.length + this.resourceTemplates.length + this.prompts.length > 0;
    this.tools = [];
    this.resources = [];
    this.resourceTemplates = [];
    this.prompts = [];
    this.listProblems = [];
    if (had) this.hooks.onListsChanged(this.id);
  }

  #setStatus(status: UpstreamStatus, error?: string): void {
    if (status !== 'stopped' && status !== 'connecting') this.#restarting = false;
    this.status = status;
    this.error = error;
    this.hooks.onStatus(this.id, status, error);
    // After the hooks: a waiter resumes with the status told (the catalog rebuild it queued comes first).
    if (status !== 'connecting') this.#tryWaiters.release();
  }

  async #connect(retry = true): Promise<void> {
    const generation = ++this.#generation;
    this.#signInWanted = false;
    if (this.status !== 'connecting') this.#setStatus('connecting'); // a restart told it already
    const firstStart = !this.#started && downloadsOnFirstStart(this.config);
    const timeout = firstStart ? this.#opts.downloadGraceMs : this.#opts.connectTimeoutMs;
    let client: UpstreamClient | undefined;
    let connected = false; // until then a failure lands in the catch below, and the close with it is the same one
    try {
      const handle = await this.hooks.createTransport(this.id, this.config, (line) => {
        this.#stderr.push(line);
        if (this.#stderr.length > 200) this.#stderr.shift();
        this.hooks.onStderr(this.id, line);
      });
      if (generation !== this.#generation) {
        await handle.transport.close().catch(() => undefined);
        return;
      }
      this.#handle = handle;
      const fresh = newUpstreamClient(this.id, this.#opts.clientInfo.version, this.hooks, (c) => void this.#refreshLists(c));
      this.#client = client = fresh;
      let answeredWhenReady = 0;
      client.onclose = () => {
        if (!connected || generation !== this.#generation || this.#stopping || this.#signInWanted) return;
        // A drop after the server answered a call starts a new count: restarting does help it. A call it
        // was sent but never answered does not count (a server that dies on its own after each start,
        // while a client keeps calling it, is a crash loop).
        const served = fresh.callsAnswered > answeredWhenReady;
        this.#onDropped(generation, this.#exitMessage('the server closed the connection', false), retry, !served);
      };
      const current = () => connected && generation === this.#generation;
      if (this.config.type !== 'stdio') {
        const { type, url } = this.config;
        watchConnection(client, { type, url, pingTimeoutMs: timeout, current, onLost: (message) => this.reportUnreachable(message) });
      }
      const wire = this.#watch(handle.transport, generation);
      // Over stdio (one client per child) plain tools/call requests go straight onto the wire.
      await client.connectWithin(this.config.type === 'stdio' ? new DirectToolCalls(wire) : wire, timeout);
      if (generation !== this.#generation) return;
      this.capabilities = client.getServerCapabilities();
      this.serverInfo = client.getServerVersion();
      await this.#loadLists(client);
      if (generation !== this.#generation) return;
      this.#started = true;
      connected = true;
      answeredWhenReady = client.callsAnswered;
      this.#triesSinceReady = 0;
      this.#setStatus('ready');
      this.hooks.onListsChanged(this.id);
      this.#idle?.touch();
    } catch (err) {
      if (generation !== this.#generation || this.#stopping) return;
      const message = this.#exitMessage(describeConnectError(err, this.config), true);
      await client?.close().catch(() => undefined);
      if (this.#signInWanted || isSignInNeeded(err)) return this.#onSignInNeeded(generation);
      this.#onDropped(generation, message, retry);
    }
  }

  /** `base` with how a stdio child exited and what its stderr says of why. */
  #exitMessage(base: string, atStart: boolean): string {
    const exit = (this.#handle?.transport as { exitStatus?: ExitStatus } | undefined)?.exitStatus;
    return withServerOutput(base, this.stderrTail(), exit, atStart);
  }

  /** No retry: reconnecting cannot help until the user signs in (the hub restarts it then). */
  #onSignInNeeded(generation: number): void {
    if (generation !== this.#generation) return;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#idle?.cancel();
    this.#client = undefined;
    this.#handle = undefined;
    this.#clearLists();
    this.#setStatus('needs-sign-in', signInMessage(this.id));
  }

  /** `crash`: counts toward the crash-loop stop; false restarts the count (the server had served a call). */
  #onDropped(generation: number, message: string, retry: boolean, crash = true): void {
    this.#idle?.cancel();
    this.#client = undefined;
    this.#handle = undefined;
    this.#clearLists();
    if (!retry || this.#stopping || generation !== this.#generation) return this.#setStatus('error', message);
    const now = this.#opts.now();
    this.#failures = crash ? [...this.#failures.filter((t) => now - t < this.#opts.crashWindowMs), now] : [now];
    this.#triesSinceReady++;
    const plan = retryPlan(this.config.type, message, this.#failures.length, this.#triesSinceReady, this.#opts);
    this.#setStatus('error', plan.message);
    if (plan.stop) return;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      if (!this.#stopping && generation === this.#generation) {
        this.restarts++;
        void this.#connect();
      }
    }, plan.delayMs);
    this.#retryTimer.unref?.();
    this.#retryAt = now + plan.delayMs;
  }

  async #refreshLists(client: Client): Promise<void> {
    if (client !== this.#client || this.status !== 'ready') return;
    try {
      await this.#loadLists(client);
      this.hooks.onListsChanged(this.id);
    } catch (err) {
      this.hooks.onLog(this.id, { level: 'warning', data: `refreshing lists failed: ${(err as Error).message}` });
      this.listProblems = [...this.listProblems.filter((p) => p.list !== 'refresh'), { list: 'refresh', message: (err as Error).message }];
    }
  }

  async #loadLists(client: Client): Promise<void> {
    // A list the server declares but refuses is served empty; its clients' log says so (as a failed refresh
    // does), and so does the server's card in the window (listProblems).
    const problems: ListProblem[] = [];
    const lists = await loadLists(client, this.#opts.connectTimeoutMs, (method, err) => {
      this.hooks.onLog(this.id, { level: 'warning', data: `${method} failed, so it is served empty: ${(err as Error).message}` });
      problems.push({ list: method === 'resources/list' ? 'resources' : 'prompts', message: (err as Error).message });
    });
    this.listProblems = problems;
    this.tools = lists.tools;
    this.resources = lists.resources;
    this.resourceTemplates = lists.resourceTemplates;
    this.prompts = lists.prompts;
  }
}
