/**
 * The hub's control operations: add, update, remove, restart and test upstreams, save policies, server
 * fields and settings. Each change is saved to the config file first, then applied to the running hub.
 */
import {
  SettingsSchema,
  ServerConfigSchema,
  applySettingsPatch,
  describeZodError,
  uniqueServerId,
  SERVER_ID_PATTERN,
  type Config,
  type ServerConfig,
  type Settings,
  type SettingsPatch,
} from '../../shared/config.js';
import type { UpstreamStatus } from '../../shared/events.js';
import type { Policies } from '../../shared/policy.js';
import type { ConfigFile } from './config-file.js';
import { ControlError } from './control-error.js';
import type { Hub } from './hub.js';
import { Upstream, type UpstreamHooks } from './upstream/upstream.js';

/** The parts of the hub that only its control operations reach. */
export interface HubInternals {
  configFile: ConfigFile;
  setConfig(next: Config): void;
  started(): boolean;
  startUpstream(id: string, cfg: ServerConfig): Upstream;
  rebuild(): void;
  upstreamHooks: UpstreamHooks;
  log(message: string, error?: unknown): void;
}

export class HubControl {
  constructor(
    private readonly hub: Hub,
    private readonly internals: HubInternals,
  ) {}

  #validateServer(input: unknown): ServerConfig {
    const parsed = ServerConfigSchema.safeParse(input);
    if (!parsed.success) {
      const { field, message } = describeZodError(parsed.error, 'config');
      throw new ControlError('invalid', message, field);
    }
    return parsed.data;
  }

  async #persist(next: Config, what: string): Promise<void> {
    await this.internals.configFile.save(next);
    this.internals.setConfig(next);
    this.hub.emit({ type: 'config.changed', level: 'info', what });
  }

  async addUpstream(req: { id?: string; name?: string; config: unknown }): Promise<{ id: string }> {
    const hub = this.hub;
    const cfg = this.#validateServer(req.config);
    let id: string;
    if (req.id !== undefined) {
      if (!SERVER_ID_PATTERN.test(req.id)) throw new ControlError('invalid', 'id: use 1-40 letters, digits, "_" or "-"', 'id');
      if (hub.config.servers[req.id]) throw new ControlError('conflict', `A server with id "${req.id}" already exists`, 'id');
      id = req.id;
    } else {
      id = uniqueServerId(req.name ?? (cfg.type === 'stdio' ? cfg.command : new URL(cfg.url).hostname), Object.keys(hub.config.servers));
    }
    await this.#persist({ ...hub.config, servers: { ...hub.config.servers, [id]: cfg } }, `server ${id} added`);
    if (this.internals.started()) this.internals.startUpstream(id, cfg);
    return { id };
  }

  async updateUpstream(req: { id: string; config: unknown }): Promise<{ id: string }> {
    const hub = this.hub;
    if (!hub.config.servers[req.id]) throw new ControlError('not_found', `No server with id "${req.id}"`, 'id');
    const cfg = this.#validateServer(req.config);
    // A masked secret sent back unchanged from a list keeps the stored value.
    const before = hub.config.servers[req.id];
    const merged = restoreMaskedSecrets(cfg, before);
    await this.#persist({ ...hub.config, servers: { ...hub.config.servers, [req.id]: merged } }, `server ${req.id} updated`);
    const old = hub.upstreams.get(req.id);
    if (JSON.stringify(before) === JSON.stringify(merged) && old) return { id: req.id };
    if (old) await old.stop();
    hub.upstreams.delete(req.id);
    hub.policy.cache.clear(req.id);
    this.internals.rebuild();
    if (this.internals.started()) this.internals.startUpstream(req.id, merged);
    return { id: req.id };
  }

  async removeUpstream(id: string): Promise<{ removed: boolean }> {
    const hub = this.hub;
    if (!hub.config.servers[id]) throw new ControlError('not_found', `No server with id "${id}"`, 'id');
    const { [id]: _removed, ...rest } = hub.config.servers;
    await this.#persist({ ...hub.config, servers: rest }, `server ${id} removed`);
    const up = hub.upstreams.get(id);
    hub.upstreams.delete(id);
    await up?.stop();
    hub.policy.cache.clear(id);
    await hub.policy.pins.forgetServer(id).catch((err) => this.internals.log(`Could not forget the tool pins of ${id}`, err));
    this.internals.rebuild();
    return { removed: true };
  }

  async restartUpstream(id: string): Promise<{ status: UpstreamStatus }> {
    const hub = this.hub;
    const cfg = hub.config.servers[id];
    if (!cfg) throw new ControlError('not_found', `No server with id "${id}"`, 'id');
    hub.policy.cache.clear(id);
    const up = hub.upstreams.get(id) ?? this.internals.startUpstream(id, cfg);
    await up.restart();
    return { status: up.status };
  }

  /** Connects to a server config without saving it and lists its tools. */
  async testUpstream(config: unknown) {
    const cfg = { ...this.#validateServer(config), enabled: true };
    const started = performance.now();
    const up = new Upstream('test', cfg, { ...this.internals.upstreamHooks, onStatus: () => {}, onListsChanged: () => {}, onStderr: () => {} }, {
      clientInfo: { name: 'spillway', version: this.hub.options.version },
      ...this.hub.options.upstream,
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
    await this.#persist({ ...this.hub.config, policies }, what);
    this.hub.policy.cache.clear(server);
    this.internals.rebuild();
  }

  /**
   * Changes a server's prefix or timeout (saved in its ServerConfig, applied without a restart) or its
   * enabled switch (which starts or stops it).
   */
  async setServerFields(id: string, fields: { enabled?: boolean; prefix?: boolean; timeoutMs?: number }): Promise<void> {
    const hub = this.hub;
    const cfg = hub.config.servers[id];
    if (!cfg) throw new ControlError('not_found', `No server with id "${id}"`, 'server');
    const next = { ...cfg, ...fields };
    if (JSON.stringify(next) === JSON.stringify(cfg)) return;
    if (fields.enabled !== undefined && fields.enabled !== cfg.enabled) {
      await hub.updateUpstream({ id, config: next });
      return;
    }
    await this.#persist({ ...hub.config, servers: { ...hub.config.servers, [id]: next } }, `server ${id} updated`);
    hub.policy.cache.clear(id);
    this.internals.rebuild();
  }

  /** Approves a withheld tool's new definition; it is listed again at once. */
  async approvePin(server: string, tool: string): Promise<boolean> {
    const approved = await this.hub.policy.pins.approve(server, tool);
    if (approved) {
      this.hub.emit({ type: 'tool.approved', level: 'info', server, tool });
      this.internals.rebuild();
    }
    return approved;
  }

  async setSettings(patch: SettingsPatch): Promise<Settings> {
    const parsed = SettingsSchema.safeParse(applySettingsPatch(this.hub.config.settings, patch));
    if (!parsed.success) {
      const { field, message } = describeZodError(parsed.error, 'settings');
      throw new ControlError('invalid', message, field);
    }
    await this.#persist({ ...this.hub.config, settings: parsed.data }, 'settings');
    if (!parsed.data.policy.pinning) this.hub.policy.pins.clearPending();
    this.internals.rebuild();
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
