/**
 * The hub: composition root of the core. Owns the upstream pool, the catalog, the downstream endpoint,
 * the event log and the config file. Runs the same inside Electron's main process and in plain Node.
 * The control side (control/) is built on top of it and reaches only the parts it uses.
 */
import { randomUUID } from 'node:crypto';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Config, Settings } from '../../shared/config.js';
import type { UnknownKey } from '../../shared/config-unknown-keys.js';
import type { HubEvent, HubEventInput } from '../../shared/events.js';
import { loadOrCreateToken, tokensEqual } from './files/access-token.js';
import { Catalog } from './catalog/catalog.js';
import { KeptCatalog } from './catalog/kept-catalog.js';
import { ConfigFile } from './files/config-file.js';
import { FastToolCalls } from './downstream/fast-tool-calls.js';
import { HttpEndpoint } from './downstream/http-endpoint.js';
import { notRunningTool } from './call/relay-errors.js';
import { Relay } from './call/relay.js';
import type { OwnResources, OwnTool } from './call/relay-contract.js';
import { catalogDispatch, type DispatchContext } from './policy/catalog-dispatch.js';
import { answersTold, DISPATCH_TOOL_NAME, type Dispatch } from './policy/dispatch-tool.js';
import { PolicyRuntime } from './policy/policy-runtime.js';
import { DownstreamSession, type SessionTransportKind } from './downstream/session.js';
import { EventLog } from './log/event-log.js';
import { StderrEvents } from './log/stderr-events.js';
import { Ledger } from './ledger/ledger.js';
import type { SpillFeature } from './spill/spill-feature.js';
import type { SecretStore } from './secrets/secret-store.js';
import type { SettingsSecrets } from './secrets/settings-secrets.js';
import { resolveServerSecrets } from './secrets/server-secret-refs.js';
import { ChildReaper } from './upstream/child-reaper.js';
import { ServerPath } from './upstream/server-path.js';
import { createTransportFactory } from './upstream/transport-factory.js';
import { UsageRecords } from './ledger/usage-records.js';
import { UpstreamPool, type UpstreamStatusChange } from './upstream/upstream-pool.js';
import { startPlan } from './upstream/start-plan.js';
import { StartupWaits } from './hub/startup-waits.js';
import { openHubParts, type HubParts } from './hub/hub-parts.js';
import { HubSignIns } from './hub/hub-sign-ins.js';
import type { HubOptions } from './hub/hub-options.js';
import { CatalogRebuild } from './hub/catalog-rebuild.js';

export type { HubOptions } from './hub/hub-options.js';

export { TOOL_PINS_FILE } from './hub/hub-parts.js';

export { FIRST_LIST_WAIT_MS, KEPT_CALL_WAIT_MS } from './hub/startup-waits.js';

export class Hub {
  readonly catalog = new Catalog();
  /** The upstreams, one per configured server. */
  readonly pool: UpstreamPool;
  readonly sessions = new Map<string, DownstreamSession>();
  readonly reaper: ChildReaper;
  /** The PATH stdio servers start with; the catalog's runtime check looks in the same one. */
  readonly serverPath: ServerPath;
  readonly endpoint: HttpEndpoint;
  readonly relay: Relay;
  readonly events: EventLog;
  /** Where env and header values live; config.json holds references (issue 15). */
  readonly secretStore: SecretStore;
  /** Sign-in of HTTP and SSE upstreams (issue 15). */
  readonly signIns: HubSignIns;
  readonly settingsSecrets: SettingsSecrets;
  readonly ledger: Ledger;
  readonly spill: SpillFeature;
  readonly policy: PolicyRuntime;
  /** spillway__dispatch: reaches the tools behind dispatch (listed only when some are). */
  readonly dispatch: Dispatch<DispatchContext>;
  readonly #configFile: ConfigFile;
  #token = '';
  /** Merges what the upstreams offer into the catalog and tells the sessions what changed. */
  readonly #catalog: CatalogRebuild;
  readonly #usage: UsageRecords;
  /** The last run's lists, serving for upstreams still starting, and this run's for the next start. */
  readonly #kept: KeptCatalog;
  /** While upstreams ready last run are still starting: what a session's first tools/list waits for. */
  readonly #waits: StartupWaits;
  #removeExitHooks: (() => void) | undefined;
  /** Servers' stderr lines become events at a bounded rate: a flood must not grow memory and logs. */
  readonly #stderr = new StderrEvents({ emit: (e) => this.emit(e) });

  private constructor(
    readonly options: HubOptions,
    configFile: ConfigFile,
    parts: HubParts,
  ) {
    this.#configFile = configFile;
    this.#kept = parts.kept;
    this.events = parts.events;
    this.events.secrets.track(
      'access token',
      () => this.#token,
      (token) => [token],
    );
    this.ledger = parts.ledger;
    this.secretStore = parts.secretStore;
    this.settingsSecrets = parts.settingsSecrets;
    this.spill = parts.spill;
    const { handleOther, authenticateClient } = options;
    this.policy = new PolicyRuntime({
      config: () => this.config,
      pins: parts.pins,
      emit: (e) => this.emit(e),
      ...(options.cacheClock ? { now: options.cacheClock } : {}),
    });
    const { dispatch, ownTool } = catalogDispatch({
      catalog: this.catalog,
      notRunning: (name) => notRunningTool(name, this.pool),
      relay: () => this.relay,
      store: parts.spill.store,
      read: (args, session) => readBack(args, session.clientName),
      emit: (e) => this.emit(e),
    });
    this.dispatch = dispatch;
    // A read of a kept result delivers tokens the spill had saved: counted, and announced (`call.counted`).
    const readName = parts.spill.readTool.tool.name;
    const readBack = async (args: Record<string, unknown>, clientName: string | undefined): Promise<CallToolResult> => {
      const started = performance.now();
      const result = await parts.spill.readTool.call(args);
      this.#usage.recordReadBack(clientName, readName, result, performance.now() - started);
      return result;
    };
    const readTool: OwnTool = { tool: parts.spill.readTool.tool, call: (args, ctx) => readBack(args, ctx.session.clientName) };
    // Every own tool the relay answers; dispatch is callable even while nothing is behind it, and what it answers itself is counted.
    const dispatchTool = answersTold(ownTool, (a, ctx, ms) => this.#usage.recordDispatchAnswer(ctx.session.clientName, DISPATCH_TOOL_NAME, a, ms));
    const ownTools: OwnTool[] = [readTool, dispatchTool];
    // A spilled result read whole as a resource is a read-back too: its text counts as delivered.
    const ownResources: OwnResources = {
      matches: (uri) => parts.spill.ownResources.matches(uri),
      read: async (uri, session) => {
        const started = performance.now();
        const read = await parts.spill.ownResources.read(uri);
        const content = read.contents.flatMap((c) => ('text' in c && typeof c.text === 'string' ? [{ type: 'text' as const, text: c.text }] : []));
        this.#usage.recordReadBack(session?.clientName, readName, { content }, performance.now() - started);
        return read;
      },
    };
    this.#usage = new UsageRecords({
      ledger: this.ledger,
      counter: parts.spill.counter,
      schemas: () => ({ upstream: this.catalog.toolEntries().map((t) => t.upstream), exposed: this.catalog.listTools() }),
      log: (m, e) => this.#log(m, e),
      emit: (e) => this.emit(e),
    });
    this.#catalog = new CatalogRebuild({
      catalog: this.catalog,
      pool: () => this.pool,
      kept: parts.kept,
      policy: this.policy,
      config: () => this.config,
      spillTools: parts.spill.ownTools.map((t) => t.tool),
      dispatchTool: () => this.dispatch.tool,
      sessions: () => this.sessions.values(),
      onToolsChanged: () => this.#usage.toolsChanged(),
      emit: (e) => this.emit(e),
    });
    this.reaper = new ChildReaper({ platform: options.platform });
    this.signIns = new HubSignIns({
      store: parts.secretStore,
      upstreams: () => this.pool,
      servers: () => this.config.servers,
      endpointUrl: () => this.url,
      clientMetadataUrl: () => this.config.settings.oauthClientMetadataUrl,
      emit: (e) => this.emit(e),
    });
    this.serverPath = new ServerPath({ platform: options.platform, env: options.env, fresh: options.useLoginShellPath === true });
    const createTransport =
      options.createTransport ??
      createTransportFactory({
        baseEnv: options.env,
        platform: options.platform,
        reaper: this.reaper,
        maxMessageBytes: () => this.config.settings.maxMessageBytes,
        spool: parts.spill.rawTexts,
        resolveSecrets: (id, cfg) => resolveServerSecrets(parts.secretStore, id, cfg),
        authProvider: (id, url) => this.signIns.providerFor(id, url),
        onInsufficientScope: (id, scope) => this.signIns.stepUp(id, scope),
        loginShellPath: () => this.serverPath.replacement(),
      });
    this.relay = new Relay({
      upstreams: () => this.pool,
      catalog: this.catalog,
      sessions: () => this.sessions.values(),
      settings: () => this.settings,
      emit: (e) => this.emit(e),
      ownTools: () => ownTools,
      ownResources,
      shaper: parts.spill.shaper,
      spilled: parts.spill.store,
      counter: parts.spill.counter,
      policy: (entry) => this.policy.values(entry),
      cache: this.policy.cache,
      ...(options.piiDeadlineMs !== undefined ? { piiDeadlineMs: options.piiDeadlineMs } : {}),
      onCallFinished: (call) => {
        this.policy.countUse(call.exposedName);
        this.#usage.recordCall(call);
      },
      onToolsListed: (session) => this.#usage.recordToolsList(session.clientName),
      beforeToolsList: (session) => this.#waits.beforeFirstList(session),
      untilStarted: (serverId, onWait) => this.#waits.untilStarted(serverId, onWait),
      onSessionReady: (s) => {
        this.emit({
          type: 'session.opened',
          level: 'info',
          session: s.id,
          client: s.clientName,
          clientVersion: s.clientVersion,
          transport: s.kind,
        });
      },
      onSessionClosed: (s) => {
        this.sessions.delete(s.id);
        this.emit({ type: 'session.closed', level: 'info', session: s.id, client: s.clientName });
      },
    });
    this.pool = new UpstreamPool({
      hooks: {
        createTransport,
        onStderr: (id, line) => this.#stderr.line(id, line),
        onListsChanged: (id) => {
          this.#catalog.keepLists(id);
          this.#catalog.queue();
        },
        onProgress: (id, params) => this.relay.onUpstreamProgress(id, params),
        onLog: (id, params) => this.relay.onUpstreamLog(id, params),
        onResourceUpdated: (id, uri) => this.relay.onResourceUpdated(id, uri),
        routeRequest: (id, kind, req, extra) => this.relay.routeRequest(id, kind, req, extra),
      },
      onStatus: (change) => this.#onUpstreamStatus(change),
      // On first use (issue 18) only with lists kept: until its first call they are all it offers.
      plan: (id, cfg) => startPlan(cfg, this.#kept.has(id, cfg)),
      upstream: { clientInfo: { name: 'spillway', version: options.version }, ...options.upstream },
    });
    this.#waits = new StartupWaits({
      pool: this.pool,
      emit: (event) => this.emit(event),
      flushRebuild: () => this.#catalog.flush(),
      firstListWaitMs: options.firstListWaitMs,
    });
    this.endpoint = new HttpEndpoint(
      {
        authenticate: (token) => (this.token && tokensEqual(token, this.token) ? {} : authenticateClient?.(token)),
        createSession: (id, _clientId, kind) => this.#newSession(id, kind),
        handleOther: (req, res, url) => handleOther?.(req, res, url) ?? Promise.resolve(false),
        oauthCallback: (query) => this.signIns.callback(query),
        onSessionReaped: (s, reason, idleMs) =>
          this.emit({ type: 'session.reaped', level: reason === 'cap' ? 'warn' : 'info', session: s.id, client: s.clientName, reason, idleMs }),
      },
      options.httpSessions,
    );
  }

  /** Loads the config (throws ConfigError naming the field and file) and builds the hub; nothing starts yet. */
  static async create(options: HubOptions): Promise<Hub> {
    const { configFile, parts } = await openHubParts(options.paths);
    return new Hub(options, configFile, parts);
  }

  #log(message: string, error?: unknown): void {
    this.emit({ type: 'log', level: 'warn', message: error ? `${message}: ${(error as Error).message ?? error}` : message });
  }

  /** The event log masks secrets in everything it keeps, publishes and writes. */
  emit(event: HubEventInput): HubEvent {
    return this.events.emit(event);
  }

  get url(): string {
    return this.endpoint.url;
  }

  /** The config as it is now; every change saves a new object (see saveConfig). */
  get config(): Config {
    return this.#configFile.current;
  }

  /** The settings, with the values kept in the secret store in place of their references. */
  get settings(): Settings {
    return this.settingsSecrets.view(this.config.settings);
  }

  /** The bearer token of the endpoint and the control API (read from the data folder on start). */
  get token(): string {
    return this.#token;
  }

  /** The keys of config.json this version does not know, as the next save writes them back. */
  get unknownConfigKeys(): readonly UnknownKey[] {
    return this.#configFile.unknown;
  }

  /** Saves the config file (with `restored` unknown keys put back: Undo's), then applies the new config and announces what changed. */
  async saveConfig(next: Config, what: string, restored?: readonly UnknownKey[]): Promise<void> {
    await this.#configFile.save(next, restored);
    this.emit({ type: 'config.changed', level: 'info', what });
  }

  /** Opens the endpoint (answers initialize at once) and starts every upstream in the background. */
  async start(): Promise<void> {
    this.#token = await loadOrCreateToken(this.options.paths.tokenFile);
    this.#removeExitHooks = this.reaper.installExitHooks(process);
    if (this.options.listen !== false) {
      await this.endpoint.listen(this.options.port ?? this.config.settings.port);
      this.emit({ type: 'log', level: 'info', message: `Spillway listening on ${this.url}` });
    }
    // The last run's lists serve at once; a session's first tools/list waits (bounded) for their upstreams.
    const standing = this.#kept.standIn(this.config.servers);
    this.pool.start(this.config.servers);
    // Servers on first use are not starting: nothing waits for them.
    const awaited = standing.filter((id) => this.pool.get(id)?.status === 'connecting');
    this.#catalog.rebuild();
    this.#waits.begin(awaited);
  }

  #stopping: Promise<void> | undefined;

  /** Stops everything; safe to call more than once. */
  stop(): Promise<void> {
    return (this.#stopping ??= this.#stop());
  }

  async #stop(): Promise<void> {
    await this.endpoint.close();
    for (const s of this.sessions.values()) await s.close();
    this.sessions.clear();
    await this.pool.stop();
    await this.reaper.killAll();
    this.#stderr.flush();
    // No child is left to reap: a process that runs hubs one after another does not pile up listeners.
    this.#removeExitHooks?.();
    // A rebuild may have pinned new tools in the background: their write lands before the process may exit.
    // A failed write was already logged by the pins.
    await this.policy.pins.flush().catch(() => undefined);
    await this.#kept.flush();
    // The last calls' records wait for their counts, which wait while calls come: they are due now.
    this.spill.counter.hurry();
    await this.#usage.settled();
    await this.spill.close();
    await this.ledger.close();
    await this.events.close();
  }

  /** Serves one downstream session over an already-open transport (stdio, bridge). */
  async connectSession(transport: Transport, kind: SessionTransportKind): Promise<DownstreamSession> {
    const session = this.#newSession(randomUUID(), kind);
    // Plain tools/call requests skip the SDK Server's per-request work (the HTTP endpoint does the same).
    await session.connect(new FastToolCalls(transport, session));
    return session;
  }

  #newSession(id: string, kind: SessionTransportKind): DownstreamSession {
    const session = new DownstreamSession(id, kind, this.relay, this.options.version);
    // What a session drops (a notification nested too deep) is said in the log, whatever its transport.
    session.onWarning = (message) => this.emit({ type: 'log', level: 'warn', message });
    this.sessions.set(id, session);
    return session;
  }

  #onUpstreamStatus(change: UpstreamStatusChange): void {
    // A restarted or reconnected server may answer differently: nothing cached before counts.
    if (change.status === 'ready' || change.status === 'stopped') this.policy.cache.clear(change.server);
    // A new process knows nothing of the subscriptions sessions hold there, nor of the logging level they want.
    if (change.status === 'ready') this.relay.upstreamReady(change.server);
    this.#catalog.statusChanged(change);
    const level = change.status === 'error' ? 'error' : change.status === 'needs-sign-in' ? 'warn' : 'info';
    this.emit({ type: 'upstream.status', level, ...change });
  }

  /** Rebuilds the catalog now (after a policy or settings change). */
  refreshCatalog(): void {
    this.#catalog.rebuild();
  }
}
