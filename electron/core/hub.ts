/**
 * The hub: composition root of the core. Owns the upstream pool, the catalog, the downstream endpoint,
 * the event log and the config file. Runs the same inside Electron's main process and in plain Node.
 */
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ConfigError, ServerConfigSchema, SettingsSchema, applySettingsPatch, type SettingsPatch, describeZodError, uniqueServerId, SERVER_ID_PATTERN, type Config, type ServerConfig, type Settings } from '../../shared/config.js';
import type { HubEvent, HubEventInput, UpstreamStatus } from '../../shared/events.js';
import type { SessionInfo, Status, ToolSummary, UpstreamInfo } from '../../shared/api.js';
import type { Policies } from '../../shared/policy.js';
import { loadOrCreateToken } from './access-token.js';
import type { AppPaths } from './app-paths.js';
import { Catalog } from './catalog/catalog.js';
import { ConfigFile } from './config-file.js';
import { HttpEndpoint, tokensEqual, type EndpointHooks } from './downstream/http-endpoint.js';
import { Relay, type OwnResources, type OwnTool, type ResultShaper } from './downstream/relay.js';
import { catalogDispatch, type DispatchContext } from './policy/catalog-dispatch.js';
import { DISPATCH_TOOL_NAME, type Dispatch } from './policy/dispatch-tool.js';
import { PolicyRuntime } from './policy/policy-runtime.js';
import { ToolPins } from './policy/tool-pins.js';
import { DownstreamSession, type SessionTransportKind } from './downstream/session.js';
import { EventLog } from './log/event-log.js';
import { Ledger } from './ledger/ledger.js';
import { createSpillFeature, recordCallInLedger, type SpillFeature } from './spill/spill-feature.js';
import { redactSecrets } from './log/redact.js';
import { ChildReaper } from './upstream/child-reaper.js';
import { readLoginShellPath } from './upstream/child-env.js';
import { createTransportFactory } from './upstream/transport-factory.js';
import { Upstream, type UpstreamHooks, type UpstreamOptions } from './upstream/upstream.js';

export class ControlError extends Error {
  constructor(
    readonly code: 'invalid' | 'not_found' | 'conflict' | 'unavailable' | 'internal',
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'ControlError';
  }
}

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
  /** Plugs for later features. */
  shaper?: ResultShaper;
  ownTools?: OwnTool[];
  ownResources?: OwnResources;
  /** Extra HTTP routes (control API, UI). */
  handleOther?: EndpointHooks['handleOther'];
  /** The call cache's clock (tests expire entries without waiting). */
  cacheClock?: () => number;
}

/** The tool pins file: first-seen definitions and approvals, kept across restarts. */
export const TOOL_PINS_FILE = 'tool-pins.json';

const passThrough: ResultShaper = {
  async shape(result: CallToolResult) {
    const bytes = Buffer.byteLength(JSON.stringify(result), 'utf8');
    return { delivered: result, action: 'pass', bytesUpstream: bytes, bytesDelivered: bytes };
  },
};

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
  #configFile: ConfigFile;
  #createTransport: UpstreamHooks['createTransport'];
  #upstreamHooks: UpstreamHooks;
  #rebuildQueued = false;
  #started = false;

  #schemaTokens: Promise<{ upstream: number; exposed: number }> | undefined;

  private constructor(
    readonly options: HubOptions,
    config: Config,
    configFile: ConfigFile,
    parts: { events: EventLog; ledger: Ledger; spill: SpillFeature; pins: ToolPins },
  ) {
    this.config = config;
    this.#configFile = configFile;
    this.events = parts.events;
    this.ledger = parts.ledger;
    this.spill = parts.spill;
    this.shaper = options.shaper ?? parts.spill.shaper;
    this.ownTools = options.ownTools ?? parts.spill.ownTools;
    this.ownResources = options.ownResources ?? parts.spill.ownResources;
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
    this.reaper = new ChildReaper({ platform: options.platform });
    let loginPath: Promise<string | undefined> | undefined;
    this.#createTransport = createTransportFactory({
      baseEnv: options.env,
      platform: options.platform,
      reaper: this.reaper,
      maxMessageBytes: () => this.config.settings.maxMessageBytes,
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
      shaper: { shape: (r, c) => this.shaper.shape(r, c) },
      policy: (entry) => this.policy.values(entry),
      cache: this.policy.cache,
      onCallFinished: (call) => {
        this.policy.countUse(call.exposedName);
        this.#recordCall(call);
      },
      onToolsListed: (session) => this.#recordToolsList(session.clientName),
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

  #recordCall(call: import('./downstream/relay.js').FinishedCall): void {
    const r = call.report;
    const fallback = () => this.spill.counter.countExactOffThread(JSON.stringify(r.delivered.content ?? []));
    recordCallInLedger(
      this.ledger,
      {
        ...(call.session.clientName ? { client: call.session.clientName } : {}),
        server: call.server,
        tool: call.tool,
        action: r.action,
        bytesUpstream: r.bytesUpstream,
        bytesDelivered: r.bytesDelivered,
        latencyMs: call.durationMs,
        ...(r.handle ? { handle: r.handle } : {}),
      },
      { upstream: r.countUpstreamTokens ?? fallback, delivered: r.countDeliveredTokens ?? fallback },
      (m, e) => this.#log(m, e),
    );
  }

  /**
   * Per tools/list served: tokens of every upstream schema (hidden, withheld and dispatch-only tools
   * included) vs what was exposed (counted once per catalog), so hiding and dispatch show as savings.
   */
  #recordToolsList(client: string | undefined): void {
    this.#schemaTokens ??= Promise.all([
      this.spill.countSchemaTokens(this.catalog.toolEntries().map((t) => t.upstream)),
      this.spill.countSchemaTokens(this.catalog.listTools()),
    ]).then(([upstream, exposed]) => ({ upstream, exposed }));
    void this.#schemaTokens
      .then((t) => this.ledger.recordList({ ...(client ? { client } : {}), tokensUpstreamSchemas: t.upstream, tokensExposed: t.exposed }))
      .catch((err) => this.#log('ledger list record failed', err));
  }

  emit(event: HubEventInput): HubEvent {
    return this.events.emit(redactSecrets(event) as HubEventInput);
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
    return !this.config.settings.paused && v.action !== 'pass' && v.thresholdTokens !== null && this.shaper !== passThrough;
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
    if (changed.tools) this.#schemaTokens = undefined;
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

  // ── control ─────────────────────────────────────────────────────────────────────────────────
  upstreamInfo(id: string): UpstreamInfo {
    const up = this.upstreams.get(id);
    const cfg = this.config.servers[id];
    if (!cfg) throw new ControlError('not_found', `No server with id "${id}"`, 'id');
    return {
      id,
      config: redactSecrets(cfg) as ServerConfig,
      status: up?.status ?? (cfg.enabled ? 'stopped' : 'disabled'),
      ...(up?.error ? { error: up.error } : {}),
      tools: up?.tools.length ?? 0,
      resources: up?.resources.length ?? 0,
      prompts: up?.prompts.length ?? 0,
      stderrTail: (up?.stderrTail() ?? []).slice(-50).map((l) => redactSecrets(l) as string),
      ...(up?.serverInfo ? { serverInfo: { name: up.serverInfo.name, version: up.serverInfo.version } } : {}),
      restarts: up?.restarts ?? 0,
    };
  }

  listUpstreams(): UpstreamInfo[] {
    return Object.keys(this.config.servers).map((id) => this.upstreamInfo(id));
  }

  sessionInfos(): SessionInfo[] {
    return [...this.sessions.values()].map((s) => ({
      id: s.id,
      transport: s.kind,
      ...(s.clientName ? { client: s.clientName } : {}),
      ...(s.clientVersion ? { clientVersion: s.clientVersion } : {}),
      openedAt: s.openedAt,
      lastActivity: s.lastActivity,
    }));
  }

  status(): Status {
    return {
      version: this.options.version,
      endpoint: this.url,
      dataDir: this.options.paths.dataDir,
      configFile: this.options.paths.configFile,
      paused: this.config.settings.paused,
      upstreams: this.listUpstreams(),
      sessions: this.sessionInfos(),
      tools: this.catalog.toolCount(),
    };
  }

  /** A server's tools as clients see them, with the tokens each schema costs in tools/list. */
  async toolSummaries(id: string): Promise<ToolSummary[]> {
    if (!this.config.servers[id]) throw new ControlError('not_found', `No server with id "${id}"`, 'id');
    const tools = this.catalog.toolEntries().filter((t) => t.serverId === id);
    return Promise.all(
      tools.map(async (t) => ({
        name: t.name,
        original: t.original,
        ...(t.exposed.description ? { description: t.exposed.description } : {}),
        schemaTokens: await this.spill.counter.count(JSON.stringify(t.exposed)),
      })),
    );
  }

  #validateServer(input: unknown): ServerConfig {
    const parsed = ServerConfigSchema.safeParse(input);
    if (!parsed.success) {
      const { field, message } = describeZodError(parsed.error, 'config');
      throw new ControlError('invalid', message, field);
    }
    return parsed.data;
  }

  async #persist(next: Config, what: string): Promise<void> {
    await this.#configFile.save(next);
    this.config = next;
    this.emit({ type: 'config.changed', level: 'info', what });
  }

  async addUpstream(req: { id?: string; name?: string; config: unknown }): Promise<{ id: string }> {
    const cfg = this.#validateServer(req.config);
    let id: string;
    if (req.id !== undefined) {
      if (!SERVER_ID_PATTERN.test(req.id)) throw new ControlError('invalid', 'id: use 1-40 letters, digits, "_" or "-"', 'id');
      if (this.config.servers[req.id]) throw new ControlError('conflict', `A server with id "${req.id}" already exists`, 'id');
      id = req.id;
    } else {
      id = uniqueServerId(req.name ?? (cfg.type === 'stdio' ? cfg.command : new URL(cfg.url).hostname), Object.keys(this.config.servers));
    }
    await this.#persist({ ...this.config, servers: { ...this.config.servers, [id]: cfg } }, `server ${id} added`);
    if (this.#started) this.#startUpstream(id, cfg);
    return { id };
  }

  async updateUpstream(req: { id: string; config: unknown }): Promise<{ id: string }> {
    if (!this.config.servers[req.id]) throw new ControlError('not_found', `No server with id "${req.id}"`, 'id');
    const cfg = this.#validateServer(req.config);
    // A masked secret sent back unchanged from a list keeps the stored value.
    const before = this.config.servers[req.id];
    const merged = restoreMaskedSecrets(cfg, before);
    await this.#persist({ ...this.config, servers: { ...this.config.servers, [req.id]: merged } }, `server ${req.id} updated`);
    const old = this.upstreams.get(req.id);
    if (JSON.stringify(before) === JSON.stringify(merged) && old) return { id: req.id };
    if (old) await old.stop();
    this.upstreams.delete(req.id);
    this.policy.cache.clear(req.id);
    this.#rebuild();
    if (this.#started) this.#startUpstream(req.id, merged);
    return { id: req.id };
  }

  async removeUpstream(id: string): Promise<{ removed: boolean }> {
    if (!this.config.servers[id]) throw new ControlError('not_found', `No server with id "${id}"`, 'id');
    const { [id]: _removed, ...rest } = this.config.servers;
    await this.#persist({ ...this.config, servers: rest }, `server ${id} removed`);
    const up = this.upstreams.get(id);
    this.upstreams.delete(id);
    await up?.stop();
    this.policy.cache.clear(id);
    await this.policy.pins.forgetServer(id).catch((err) => this.#log(`Could not forget the tool pins of ${id}`, err));
    this.#rebuild();
    return { removed: true };
  }

  async restartUpstream(id: string): Promise<{ status: UpstreamStatus }> {
    const cfg = this.config.servers[id];
    if (!cfg) throw new ControlError('not_found', `No server with id "${id}"`, 'id');
    this.policy.cache.clear(id);
    const up = this.upstreams.get(id) ?? this.#startUpstream(id, cfg);
    await up.restart();
    return { status: up.status };
  }

  /** Connects to a server config without saving it and lists its tools. */
  async testUpstream(config: unknown) {
    const cfg = { ...this.#validateServer(config), enabled: true };
    const started = performance.now();
    const up = new Upstream('test', cfg, { ...this.#upstreamHooks, onStatus: () => {}, onListsChanged: () => {}, onStderr: () => {} }, {
      clientInfo: { name: 'spillway', version: this.options.version },
      ...this.options.upstream,
    });
    try {
      await up.connectOnce();
      return {
        ok: up.status === 'ready',
        ...(up.error ? { error: up.error } : {}),
        ...(up.serverInfo ? { serverInfo: { name: up.serverInfo.name, version: up.serverInfo.version } } : {}),
        tools: up.tools.map((t) => ({ name: t.name, original: t.name, ...(t.description ? { description: t.description } : {}) })),
        stderrTail: up.stderrTail().slice(-50),
        durationMs: Math.round(performance.now() - started),
      };
    } finally {
      await up.stop();
    }
  }

  /** Saves policies (validated by the caller) and applies them at once; upstreams keep running. */
  async setPolicies(policies: Policies, what: string, server?: string): Promise<void> {
    await this.#persist({ ...this.config, policies }, what);
    this.policy.cache.clear(server);
    this.#rebuild();
  }

  /**
   * Changes a server's prefix or timeout (saved in its ServerConfig, applied without a restart) or its
   * enabled switch (which starts or stops it).
   */
  async setServerFields(id: string, fields: { enabled?: boolean; prefix?: boolean; timeoutMs?: number }): Promise<void> {
    const cfg = this.config.servers[id];
    if (!cfg) throw new ControlError('not_found', `No server with id "${id}"`, 'server');
    const next = { ...cfg, ...fields };
    if (JSON.stringify(next) === JSON.stringify(cfg)) return;
    if (fields.enabled !== undefined && fields.enabled !== cfg.enabled) {
      await this.updateUpstream({ id, config: next });
      return;
    }
    await this.#persist({ ...this.config, servers: { ...this.config.servers, [id]: next } }, `server ${id} updated`);
    this.policy.cache.clear(id);
    this.#rebuild();
  }

  /** Approves a withheld tool's new definition; it is listed again at once. */
  async approvePin(server: string, tool: string): Promise<boolean> {
    const approved = await this.policy.pins.approve(server, tool);
    if (approved) {
      this.emit({ type: 'tool.approved', level: 'info', server, tool });
      this.#rebuild();
    }
    return approved;
  }

  async setSettings(patch: SettingsPatch): Promise<Settings> {
    const parsed = SettingsSchema.safeParse(applySettingsPatch(this.config.settings, patch));
    if (!parsed.success) {
      const { field, message } = describeZodError(parsed.error, 'settings');
      throw new ControlError('invalid', message, field);
    }
    await this.#persist({ ...this.config, settings: parsed.data }, 'settings');
    if (!parsed.data.policy.pinning) this.policy.pins.clearPending();
    this.#rebuild();
    return parsed.data;
  }
}

/** Values the list showed masked ("••••") and the user sent back unchanged keep what was stored. */
export function restoreMaskedSecrets(next: ServerConfig, before: ServerConfig | undefined): ServerConfig {
  if (!before) return next;
  const keep = (a: Record<string, string>, b: Record<string, string>) =>
    Object.fromEntries(Object.entries(a).map(([k, v]) => [k, /^•+$|^\*{3,}$|\[redacted\]/i.test(v) && b[k] !== undefined ? b[k] : v]));
  if (next.type === 'stdio' && before.type === 'stdio') return { ...next, env: keep(next.env, before.env) };
  if (next.type !== 'stdio' && before.type !== 'stdio') return { ...next, headers: keep(next.headers, before.headers) };
  return next;
}

export { ConfigError };
