/**
 * The control contract implemented in memory, for component tests. Requests are parsed with the
 * contract's schemas and answers are parsed back through them, so the fake cannot drift from it.
 */
import { api, type ApiResult, type MethodName, type Req, type Res, type UpstreamInfo, type ToolSummary } from '../../shared/api.js';
import { applySettingsPatch, describeZodError, maskSettingsSecrets, SettingsSchema, type ServerConfig, type Settings } from '../../shared/config.js';
import { matchesFilter, type HubEvent, type HubEventInput } from '../../shared/events.js';
import type { ApiFailure, Backend } from '../../renderer/src/lib/api.js';
import { FakeClients } from './fake-clients.js';
import { FakeLedger } from './fake-ledger.js';
import { FakePolicies } from './fake-policies.js';
import { FakeRegistry } from './fake-registry.js';
import { FakeSpill } from './fake-spill.js';

type Handler<M extends MethodName> = (req: z_out<M>, raw: Req<M>) => ApiResult<Res<M>>;
/** Handlers of some methods, as each area of the fake provides them. */
export type Handlers = { [M in MethodName]?: Handler<M> };
type z_out<M extends MethodName> = ReturnType<Api[M]['req']['parse']>;
type Api = typeof api;

/** Tools every fake server offers, keyed by what a test configures. */
export function fakeTools(config: ServerConfig): ToolSummary[] {
  const base = config.type === 'stdio' ? config.command : new URL(config.url).hostname;
  return [
    { name: `${base}__read_file`, original: 'read_file', description: 'Read a file', schemaTokens: 120 },
    { name: `${base}__list_directory`, original: 'list_directory', description: 'List a folder', schemaTokens: 95 },
  ];
}

export class FakeBackend implements Backend {
  readonly servers = new Map<string, UpstreamInfo>();
  /** Servers removed, held for upstreams.undoRemove as the hub holds them. */
  readonly #removed = new Map<string, UpstreamInfo>();
  settings: Settings = SettingsSchema.parse({});
  readonly log: HubEvent[] = [];
  readonly calls: Array<{ method: MethodName; req: unknown }> = [];
  /** Ports another program holds: settings.set answers `conflict` for them. */
  readonly busyPorts = new Set<number>([8080]);
  readonly spill = new FakeSpill(() => this.settings.spill.quotaBytes);
  readonly ledger = new FakeLedger();
  readonly policies = new FakePolicies(this);
  readonly clients = new FakeClients(this);
  readonly registry = new FakeRegistry(this);
  /** Methods this hub answers `not_found` for, as a hub does for what is not wired yet. */
  readonly notOffered = new Set<MethodName>();
  #subscribers = new Set<(e: HubEvent) => void>();
  #connectionWatchers = new Set<(connected: boolean) => void>();
  #failures = new Map<MethodName, ApiFailure>();
  #holding = new Set<MethodName>();
  #waiting: Array<() => void> = [];
  #seq = 0;
  /** The last revision given to a server's config (the hub's are hashes; any new name per change will do). */
  #revisions = 0;

  /** Answers `not_found` for every method of an area (`policies`, `pins`, `clients`, `spill`, `savings`). */
  withhold(...areas: string[]): void {
    for (const name of Object.keys(api) as MethodName[]) if (areas.some((a) => name.startsWith(`${a}.`))) this.notOffered.add(name);
  }

  /** Makes the next call of `method` fail with `failure`. */
  failNext(method: MethodName, failure: Omit<ApiFailure, 'ok'>): void {
    this.#failures.set(method, { ok: false, ...failure });
  }

  /** Keeps calls of `method` waiting, as a hub still saving the config does, until `release()`. */
  hold(method: MethodName): void {
    this.#holding.add(method);
  }

  /** Lets the held calls through, in the order they came; later calls are no longer held. */
  release(): void {
    this.#holding.clear();
    for (const go of this.#waiting.splice(0)) go();
  }

  callsOf(method: MethodName): unknown[] {
    return this.calls.filter((c) => c.method === method).map((c) => c.req);
  }

  get subscriberCount(): number {
    return this.#subscribers.size;
  }

  /** Stamps an event as the hub's log does, keeps it for events.query and pushes it to subscribers. */
  emit(input: HubEventInput): HubEvent {
    const event = { ...input, seq: ++this.#seq, time: input.time ?? new Date().toISOString() } as HubEvent;
    this.log.push(event);
    for (const fn of [...this.#subscribers]) fn(event);
    return event;
  }

  /** Adds a server directly (test setup), ready with its tools. */
  seedServer(id: string, config: ServerConfig): UpstreamInfo {
    const info: UpstreamInfo = {
      id,
      config,
      status: config.enabled === false ? 'disabled' : 'ready',
      tools: fakeTools(config).length,
      resources: 0,
      prompts: 0,
      stderrTail: [],
      restarts: 0,
      revision: `r${++this.#revisions}`,
    };
    this.servers.set(id, info);
    return info;
  }

  subscribe(fn: (e: HubEvent) => void): () => void {
    this.#subscribers.add(fn);
    return () => this.#subscribers.delete(fn);
  }

  watchConnection(fn: (connected: boolean) => void): () => void {
    this.#connectionWatchers.add(fn);
    return () => this.#connectionWatchers.delete(fn);
  }

  /** Tells the window the hub stopped answering (false) or is back (true), as the event stream would. */
  setConnected(connected: boolean): void {
    for (const fn of [...this.#connectionWatchers]) fn(connected);
  }

  async call<M extends MethodName>(method: M, req: Req<M>): Promise<ApiResult<Res<M>>> {
    this.calls.push({ method, req });
    if (this.#holding.has(method)) await new Promise<void>((go) => this.#waiting.push(go));
    const failure = this.#failures.get(method);
    if (failure) {
      this.#failures.delete(method);
      return failure;
    }
    if (this.notOffered.has(method)) return { ok: false, code: 'not_found', message: `unknown method ${method}` };
    const parsed = api[method].req.safeParse(req);
    if (!parsed.success) {
      const { field, message } = describeZodError(parsed.error);
      return { ok: false, code: 'invalid', field, message };
    }
    const handler = (this.#handlers[method] ?? this.#areas[method]) as unknown as Handler<M> | undefined;
    if (!handler) return { ok: false, code: 'not_found', message: `Unknown method: ${method}` };
    const result = handler(parsed.data as z_out<M>, req);
    if (result.ok) api[method].res.parse(result.value);
    return result;
  }

  #status(): Res<'status'> {
    const upstreams = [...this.servers.values()];
    return {
      version: '0.1.0-test',
      endpoint: `http://127.0.0.1:${this.settings.port}/mcp`,
      dataDir: '/tmp/spillway-test',
      configFile: '/tmp/spillway-test/config.json',
      paused: this.settings.paused,
      upstreams,
      sessions: [],
      tools: upstreams.reduce((n, u) => n + u.tools, 0),
    };
  }

  /** Tools of a server by its id (what upstreams.tools answers). */
  toolsOf(id: string): ToolSummary[] | undefined {
    const known = this.servers.get(id);
    return known ? fakeTools(known.config) : undefined;
  }

  get #areas(): Handlers {
    return { ...this.spill.handlers, ...this.ledger.handlers, ...this.policies.handlers, ...this.clients.handlers, ...this.registry.handlers };
  }

  #handlers: { [M in MethodName]?: Handler<M> } = {
    status: () => ({ ok: true, value: this.#status() }),
    'upstreams.list': () => ({ ok: true, value: [...this.servers.values()] }),
    'upstreams.add': (req) => {
      const id = req.id ?? req.name ?? 'server';
      if (this.servers.has(id)) return { ok: false, code: 'conflict', field: 'id', message: `a server named ${id} exists` };
      this.seedServer(id, req.config);
      this.emit({ type: 'config.changed', level: 'info', what: `servers.${id}` });
      return { ok: true, value: { id } };
    },
    'upstreams.update': (req) => {
      const known = this.servers.get(req.id);
      if (!known) return { ok: false, code: 'not_found', field: 'id', message: `no server ${req.id}` };
      if (req.revision !== undefined && req.revision !== known.revision)
        return { ok: false, code: 'conflict', field: 'revision', message: 'This server was changed after you opened this form.' };
      this.seedServer(req.id, req.config);
      return { ok: true, value: { id: req.id } };
    },
    'upstreams.setEnabled': (req) => {
      const known = this.servers.get(req.id);
      if (!known) return { ok: false, code: 'not_found', field: 'id', message: `no server ${req.id}` };
      this.seedServer(req.id, { ...known.config, enabled: req.enabled });
      return { ok: true, value: { id: req.id } };
    },
    'upstreams.remove': (req) => {
      const server = this.servers.get(req.id);
      if (server) this.#removed.set(req.id, server);
      return { ok: true, value: { removed: this.servers.delete(req.id), undoable: server !== undefined } };
    },
    'upstreams.undoRemove': (req) => {
      const server = this.#removed.get(req.id);
      if (!server) return { ok: false, code: 'not_found', field: 'id', message: `"${req.id}" can no longer be put back` };
      this.#removed.delete(req.id);
      this.servers.set(req.id, server);
      return { ok: true, value: { id: req.id } };
    },
    'upstreams.cancelSignIn': (req) =>
      this.servers.has(req.id) ? { ok: true, value: { cancelled: true } } : { ok: false, code: 'not_found', message: `no server ${req.id}` },
    'upstreams.restart': (req) => {
      const known = this.servers.get(req.id);
      if (!known) return { ok: false, code: 'not_found', message: `no server ${req.id}` };
      known.restarts += 1;
      return { ok: true, value: { status: known.status } };
    },
    'upstreams.test': (req) => {
      if (req.config.type === 'stdio' && req.config.command === 'missing-program') {
        return {
          ok: true,
          value: { ok: false, error: 'spawn missing-program ENOENT', tools: [], stderrTail: [], durationMs: 3 },
        };
      }
      return {
        ok: true,
        value: {
          ok: true,
          serverInfo: { name: 'fake-server', version: '1.2.3' },
          tools: fakeTools(req.config),
          stderrTail: ['fake server running on stdio'],
          durationMs: 42,
        },
      };
    },
    'upstreams.tools': (req) => {
      const known = this.servers.get(req.id);
      if (!known) return { ok: false, code: 'not_found', message: `no server ${req.id}` };
      return { ok: true, value: fakeTools(known.config) };
    },
    'settings.get': () => ({ ok: true, value: maskSettingsSecrets(this.settings) }),
    'settings.set': (parsed) => {
      if (parsed.port !== undefined && this.busyPorts.has(parsed.port)) {
        return { ok: false, code: 'conflict', field: 'port', message: `port ${parsed.port} is in use by another program` };
      }
      // Merged as the hub merges a patch: only what was sent changes; `***` keeps the stored API key.
      this.settings = SettingsSchema.parse(applySettingsPatch(this.settings, parsed));
      return { ok: true, value: maskSettingsSecrets(this.settings) };
    },
    'compression.test': () => {
      const { baseUrl, model } = this.settings.compression;
      if (!baseUrl || !model) return { ok: true, value: { ok: false, latencyMs: 0, error: 'Set a base URL and a model first' } };
      if (baseUrl.includes('unreachable'))
        return { ok: true, value: { ok: false, latencyMs: 5, error: `connect ECONNREFUSED ${new URL(baseUrl).host}` } };
      return { ok: true, value: { ok: true, latencyMs: 123, model } };
    },
    'events.query': (filter) => {
      const matching = this.log.filter((e) => matchesFilter(e, filter));
      return { ok: true, value: matching.slice(-filter.limit) };
    },
    'sessions.list': () => ({ ok: true, value: this.clients.sessions }),
  };
}
