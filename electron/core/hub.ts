/**
 * The hub: composition root of the core. Owns the upstream pool, the catalog, the downstream endpoint,
 * the event log and the config file. Runs the same inside Electron's main process and in plain Node.
 * Control operations live in hub-control.ts, status reports in hub-status.ts; the hub delegates to them.
 */
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { SettingsPatch, Config, ServerConfig, Settings } from '../../shared/config.js';
import type { HubEvent, HubEventInput, UpstreamStatus } from '../../shared/events.js';
import type { SessionInfo, Status, ToolSummary, UpstreamInfo } from '../../shared/api.js';
import type { Policies } from '../../shared/policy.js';
import { loadOrCreateToken } from './access-token.js';
import type { AppPaths } from './app-paths.js';
import { Catalog } from './catalog/catalog.js';
import { ConfigFile } from './config-file.js';
import { serveToolCallsDirectly } from './downstream/fast-tool-calls.js';
import { HttpEndpoint, tokensEqual, type EndpointHooks } from './downstream/http-endpoint.js';
import { Relay } from './downstream/relay.js';
import type { OwnResources, OwnTool, ResultShaper } from './downstream/relay-contract.js';
import { HubControl } from './hub-control.js';
import { hubStatus, listUpstreams, sessionInfos, toolSummaries, upstreamInfo } from './hub-status.js';
import { catalogDispatch, type DispatchContext } from './policy/catalog-dispatch.js';
import { DISPATCH_TOOL_NAME, type Dispatch } from './policy/dispatch-tool.js';
import { PolicyRuntime } from './policy/policy-runtime.js';
import { ToolPins } from './policy/tool-pins.js';
import { DownstreamSession, type SessionTransportKind } from './downstream/session.js';
import { EventLog } from './log/event-log.js';
import { Ledger } from './ledger/ledger.js';
import { createSpillFeature, type SpillFeature } from './spill/spill-feature.js';
import { ChildReaper } from './upstream/child-reaper.js';
import { readLoginShellPath } from './upstream/child-env.js';
import { createTransportFactory } from './upstream/transport-factory.js';
import { UsageRecords } from './usage-records.js';
import { Upstream, type UpstreamHooks, type UpstreamOptions } from './upstream/upstream.js';

export { ConfigError } from '../../shared/config.js';
export { ControlError } from './control-error.js';
export { restoreMaskedSecrets } from './hub-control.js';

export interface HubOptions {
  paths: AppPaths;
  version: string;
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  /** Overrides the configured port (the CLI's --port). */
  port?: number;
  /** Use the login shell's PATH for stdio servers (true when launched from a GUI). */
  useLoginShellPath?: boolean;
  /** Tuning for upstream reconnects (tests shorten these). */
  upstream?: Partial<UpstreamOptions>;
  /** Extra HTTP routes (control API, UI). */
  handleOther?: EndpointHooks['handleOther'];
  /** The call cache's clock (tests expire entries without waiting). */
  cacheClock?: () => number;
}

/** The tool pins file: first-seen definitions and approvals, kept across restarts. */
export const TOOL_PINS_FILE = 'tool-pins.json';

export class Hub {
  readonly catalog = new Catalog();
  readonly upstreams = new Map<string, Upstream>();
  readonly sessions = new Map<string, DownstreamSession>();
  readonly reaper: ChildReaper;
  readonly endpoint: HttpEndpoint;
  readonly relay: Relay;
  readonly events: EventLog;
  readonly ledger: Ledger;
  readonly spill: SpillFeature;
  readonly policy: PolicyRuntime;
  /** spillway__dispatch: reaches the tools behind dispatch (listed only when some are). */
  readonly dispatch: Dispatch<DispatchContext>;
  config: Config;
  token = '';
  /** spillway__dispatch as an own tool (its description follows what is behind it). */
  readonly #dispatchTool: OwnTool;
  shaper: ResultShaper;
  ownTools: OwnTool[];
  ownResources: OwnResources | undefined;
  handleOther: EndpointHooks['handleOther'];
  /** Per-client tokens (one-click client configuration): who holds this token, if anyone. */
  authenticateClient: ((token: string) => { clientId: string } | undefined) | undefined;
  #createTransport: UpstreamHooks['createTransport'];
  #upstreamHooks: UpstreamHooks;
  #rebuildQueued = false;
  #started = false;
  readonly #control: HubControl;
  readonly #usage: UsageRecords;

  private constructor(
    readonly options: HubOptions,
    config: Config,
    configFile: ConfigFile,
    parts: { events: EventLog; ledger: Ledger; spill: SpillFeature; pins: ToolPins },
  ) {
    this.config = config;
    this.events = parts.events;
    this.ledger = parts.ledger;
    this.spill = parts.spill;
    this.shaper = parts.spill.shaper;
    this.ownTools = parts.spill.ownTools;
    this.ownResources = parts.spill.ownResources;
    this.handleOther = options.handleOther;
    this.policy = new PolicyRuntime({
      config: () => this.config,
      pins: parts.pins,
      emit: (e) => this.emit(e),
      ...(options.cacheClock ? { now: options.cacheClock } : {}),
    });
    const { dispatch, ownTool } = catalogDispatch({
      catalog: this.catalog,
      relay: () => this.relay,
      store: parts.spill.store,
      counter: parts.spill.counter,
    });
    this.dispatch = dispatch;
    this.#dispatchTool = ownTool;
    this.#usage = new UsageRecords({ ledger: this.ledger, spill: this.spill, catalog: this.catalog, log: (m, e) => this.#log(m, e) });
    this.reaper = new ChildReaper({ platform: options.platform });
    let loginPath: Promise<string | undefined> | undefined;
    this.#createTransport = createTransportFactory({
      baseEnv: options.env,
      platform: options.platform,
      reaper: this.reaper,
      maxMessageBytes: () => this.config.settings.maxMessageBytes,
      spool: parts.spill.rawTexts,
      loginShellPath: options.useLoginShellPath
        ? () => (loginPath ??= readLoginShellPath({ platform: options.platform, env: options.env, timeoutMs: 5000 }))
        : undefined,
    });
    this.relay = new Relay({
      upstreams: () => this.upstreams,
      catalog: this.catalog,
      sessions: () => this.sessions.values(),
      settings: () => this.config.settings,
      emit: (e) => this.emit(e),
      ownTools: () => [...this.ownTools, this.#dispatchTool],
      ownResources: this.ownResources,
      shaper: { shape: (r, c) => this.shaper.shape(r, c), materialize: (r) => this.shaper.materialize?.(r) ?? Promise.resolve(r) },
      policy: (entry) => this.policy.values(entry),
      cache: this.policy.cache,
      onCallFinished: (call) => {
        this.policy.countUse(call.exposedName);
        this.#usage.recordCall(call);
      },
      onToolsListed: (session) => this.#usage.recordToolsList(session.clientName),
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
    this.#upstreamHooks = {
      createTransport: (id, cfg, onStderr) => this.#createTransport(id, cfg, onStderr),
      onStatus: (id, status, error) => this.#onUpstreamStatus(id, status, error),
      onStderr: (id, line) => this.emit({ type: 'upstream.stderr', level: 'debug', server: id, line }),
      onListsChanged: () => this.#queueRebuild(),
      onProgress: (id, params) => this.relay.onUpstreamProgress(id, params),
      onLog: (id, params) => this.relay.onUpstreamLog(id, params),
      onResourceUpdated: (id, uri) => this.relay.onResourceUpdated(id, uri),
      routeRequest: (id, kind, req, extra) => this.relay.routeRequest(id, kind, req, extra),
    };
    this.endpoint = new HttpEndpoint({
      authenticate: (token) => (this.token && tokensEqual(token, this.token) ? {} : this.authenticateClient?.(token)),
      createSession: (id) => this.#newSession(id, 'http'),
      handleOther: (req, res, url) => this.handleOther?.(req, res, url) ?? Promise.resolve(false),
    });
    this.#control = new HubControl(this, {
      configFile,
      setConfig: (next) => {
        this.config = next;
      },
      started: () => this.#started,
      startUpstream: (id, cfg) => this.#startUpstream(id, cfg),
      rebuild: () => this.#rebuild(),
      upstreamHooks: this.#upstreamHooks,
      log: (message, error) => this.#log(message, error),
    });
  }

  /** Loads the config (throws ConfigError naming the field and file) and builds the hub; nothing starts yet. */
  static async create(options: HubOptions): Promise<Hub> {
    const configFile = new ConfigFile(options.paths.configFile);
    const config = await configFile.load();
    await mkdir(options.paths.dataDir, { recursive: true, mode: 0o700 });
    const events = new EventLog({ dir: options.paths.logDir, retentionDays: config.settings.logRetentionDays });
    const log = (message: string, error?: unknown) =>
      events.emit({ type: 'log', level: 'warn', message: error ? `${message}: ${(error as Error).message ?? error}` : message });
    const ledger = new Ledger({ dir: options.paths.ledgerDir, onError: (err) => log('ledger write failed', err) });
    await ledger.open();
    let hub: Hub | undefined;
    const spill = await createSpillFeature({
      spillDir: options.paths.spillDir,
      settings: () => hub?.config.settings ?? config.settings,
      ledger,
      log,
    });
    const pins = await ToolPins.open({ file: join(options.paths.dataDir, TOOL_PINS_FILE), log });
    hub = new Hub(options, config, configFile, { events, ledger, spill, pins });
    return hub;
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

  get settings(): Settings {
    return this.config.settings;
  }

  /** Opens the endpoint (answers initialize at once) and starts every upstream in the background. */
  async start(): Promise<void> {
    this.token = await loadOrCreateToken(this.options.paths.tokenFile);
    this.reaper.installExitHooks?.(process);
    await this.endpoint.listen(this.options.port ?? this.config.settings.port);
    this.#started = true;
    this.emit({ type: 'log', level: 'info', message: `Spillway listening on ${this.url}` });
    for (const [id, cfg] of Object.entries(this.config.servers)) this.#startUpstream(id, cfg);
    this.#rebuild();
  }

  #stopping: Promise<void> | undefined;

  /** Stops everything; safe to call more than once. */
  stop(): Promise<void> {
    return (this.#stopping ??= this.#stop());
  }

  async #stop(): Promise<void> {
    this.#started = false;
    await this.endpoint.close();
    for (const s of this.sessions.values()) await s.close();
    this.sessions.clear();
    await Promise.all([...this.upstreams.values()].map((u) => u.stop()));
    this.upstreams.clear();
    await this.reaper.killAll();
    await this.spill.close();
    await this.ledger.close();
    await this.events.close();
  }

  /** Serves one downstream session over an already-open transport (stdio, bridge). */
  async connectSession(transport: Transport, kind: SessionTransportKind): Promise<DownstreamSession> {
    const session = this.#newSession(randomUUID(), kind);
    await session.connect(transport);
    // One client per transport: plain tools/call requests skip the SDK Server's per-request work.
    if (kind !== 'http') serveToolCallsDirectly(session, transport, this.relay);
    return session;
  }

  #newSession(id: string, kind: SessionTransportKind): DownstreamSession {
    const session = new DownstreamSession(id, kind, this.relay, this.options.version);
    this.sessions.set(id, session);
    return session;
  }

  #startUpstream(id: string, cfg: ServerConfig): Upstream {
    const up = new Upstream(id, cfg, this.#upstreamHooks, {
      clientInfo: { name: 'spillway', version: this.options.version },
      ...this.options.upstream,
    });
    this.upstreams.set(id, up);
    up.start();
    return up;
  }

  #onUpstreamStatus(id: string, status: UpstreamStatus, error?: string): void {
    const up = this.upstreams.get(id);
    // A restarted or reconnected server may answer differently: nothing cached before counts.
    if (status === 'ready' || status === 'stopped') this.policy.cache.clear(id);
    this.emit({
      type: 'upstream.status',
      level: status === 'error' ? 'error' : 'info',
      server: id,
      status,
      ...(error ? { error } : {}),
      ...(status === 'ready' && up ? { tools: up.tools.length } : {}),
    });
  }

  #queueRebuild(): void {
    if (this.#rebuildQueued) return;
    this.#rebuildQueued = true;
    queueMicrotask(() => {
      this.#rebuildQueued = false;
      this.#rebuild();
    });
  }

  /** Whether results of this tool may be replaced by a preview (then its outputSchema is not exposed). */
  mayRewriteResult(serverId: string, tool: Tool): boolean {
    const v = this.policy.effective(serverId, tool.name, tool).values;
    return !this.config.settings.paused && v.action !== 'pass' && v.thresholdTokens !== null;
  }

  /** Own tools as listed: read_result (and the like), plus dispatch when some tool is behind it. */
  #listedOwnTools(): Tool[] {
    const own = this.ownTools.map((t) => t.tool);
    return this.catalog.toolEntries('dispatch').length > 0 ? [...own, this.dispatch.tool] : own;
  }

  #rebuild(): void {
    const withheld = new Map<string, Set<string>>();
    const sources = [...this.upstreams.values()]
      .filter((u) => u.status === 'ready')
      .map((u) => {
        withheld.set(u.id, this.policy.withheld(u.id, u.tools));
        return {
          id: u.id,
          // The config is the source of truth: a prefix changed by a policy applies without a restart.
          prefix: this.config.servers[u.id]?.prefix ?? u.config.prefix,
          tools: u.tools,
          resources: u.resources,
          resourceTemplates: u.resourceTemplates,
          prompts: u.prompts,
        };
      });
    const changed = this.catalog.rebuild(sources, {
      maxLength: this.config.settings.toolNameMaxLength,
      ownTools: () => this.#listedOwnTools(),
      reservedNames: [DISPATCH_TOOL_NAME],
      mayRewriteResult: (id, tool) => this.mayRewriteResult(id, tool),
      toolShape: (id, tool) => this.policy.shape(id, tool, withheld.get(id)?.has(tool.name) ?? false),
      // Dispatch joins the listed own tools once anything is capped, so it counts against the cap too.
      capDirect: (direct) => this.policy.overCap(direct, this.ownTools.length + 1),
    });
    for (const clash of this.catalog.clashes) {
      this.emit({ type: 'log', level: 'error', server: clash.serverId, message: `Tool withheld: ${clash.reason}` });
    }
    if (changed.tools) this.#usage.toolsChanged();
    if (!changed.tools && !changed.resources && !changed.prompts) return;
    this.emit({
      type: 'catalog.changed',
      level: 'info',
      tools: this.catalog.toolCount(),
      resources: this.catalog.listResources().length,
      prompts: this.catalog.listPrompts().length,
    });
    for (const s of this.sessions.values()) {
      if (s.closed || !s.server.transport) continue;
      if (changed.tools) void s.server.sendToolListChanged().catch(() => undefined);
      if (changed.resources) void s.server.sendResourceListChanged().catch(() => undefined);
      if (changed.prompts) void s.server.sendPromptListChanged().catch(() => undefined);
    }
  }

  /** Rebuilds the catalog now (after a policy or settings change). */
  refreshCatalog(): void {
    this.#rebuild();
  }


  // ── control (hub-status.ts, hub-control.ts) ─────────────────────────────────────────────────
  upstreamInfo(id: string): UpstreamInfo {
    return upstreamInfo(this, id);
  }
  listUpstreams(): UpstreamInfo[] {
    return listUpstreams(this);
  }
  sessionInfos(): SessionInfo[] {
    return sessionInfos(this);
  }
  status(): Status {
    return hubStatus(this);
  }
  /** A server's tools as clients see them, with the tokens each schema costs in tools/list. */
  toolSummaries(id: string): Promise<ToolSummary[]> {
    return toolSummaries(this, id);
  }
  addUpstream(req: { id?: string; name?: string; config: unknown }): Promise<{ id: string }> {
    return this.#control.addUpstream(req);
  }
  updateUpstream(req: { id: string; config: unknown }): Promise<{ id: string }> {
    return this.#control.updateUpstream(req);
  }
  removeUpstream(id: string): Promise<{ removed: boolean }> {
    return this.#control.removeUpstream(id);
  }
  restartUpstream(id: string): Promise<{ status: UpstreamStatus }> {
    return this.#control.restartUpstream(id);
  }
  /** Connects to a server config without saving it and lists its tools. */
  testUpstream(config: unknown): ReturnType<HubControl['testUpstream']> {
    return this.#control.testUpstream(config);
  }
  /** Saves policies (validated by the caller) and applies them at once; upstreams keep running. */
  setPolicies(policies: Policies, what: string, server?: string): Promise<void> {
    return this.#control.setPolicies(policies, what, server);
  }
  /** Changes a server's prefix, timeout or enabled switch (see HubControl.setServerFields). */
  setServerFields(id: string, fields: { enabled?: boolean; prefix?: boolean; timeoutMs?: number }): Promise<void> {
    return this.#control.setServerFields(id, fields);
  }
  /** Approves a withheld tool's new definition; it is listed again at once. */
  approvePin(server: string, tool: string): Promise<boolean> {
    return this.#control.approvePin(server, tool);
  }
  setSettings(patch: SettingsPatch): Promise<Settings> {
    return this.#control.setSettings(patch);
  }
}
