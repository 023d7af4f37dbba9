/**
 * Keeping the hub's catalog in step with its upstreams: what each server offers (its own lists once it
 * is ready, else the last lists it gave while it is not running but will be) is merged under the
 * policies into the catalog, at most once per turn of the event loop, and every open session is told
 * what changed (list_changed only for the lists that did).
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Config } from '../../../shared/config.js';
import type { HubEventInput } from '../../../shared/events.js';
import { ownValue } from '../../../shared/records.js';
import { hidesSecrets } from '../call/hidden-values.js';
import type { Catalog, CatalogSource } from '../catalog/catalog.js';
import type { KeptCatalog } from '../catalog/kept-catalog.js';
import type { DownstreamSession } from '../downstream/session.js';
import { ClashReports } from './catalog-clashes.js';
import { DISPATCH_TOOL_NAME } from '../policy/dispatch-tool.js';
import type { PolicyRuntime } from '../policy/policy-runtime.js';
import type { Upstream } from '../upstream/upstream.js';
import type { UpstreamPool, UpstreamStatusChange } from '../upstream/upstream-pool.js';

export interface CatalogRebuildDeps {
  catalog: Catalog;
  pool: () => UpstreamPool;
  /** The last run's lists, serving for upstreams still starting, and this run's for the next start. */
  kept: KeptCatalog;
  policy: PolicyRuntime;
  config: () => Config;
  /** The definitions of spill/'s own tools (read_result and the like), listed before every upstream tool. */
  spillTools: Tool[];
  /** spillway__dispatch's definition, read each rebuild: its description names the servers behind it. */
  dispatchTool: () => Tool;
  sessions: () => Iterable<DownstreamSession>;
  onToolsChanged: () => void;
  emit: (event: HubEventInput) => void;
}

export class CatalogRebuild {
  #queued = false;
  #clashes = new ClashReports();

  constructor(private readonly deps: CatalogRebuildDeps) {}

  /** Rebuilds once, at the end of this turn (many list changes in a row make one rebuild). */
  queue(): void {
    if (this.#queued) return;
    this.#queued = true;
    queueMicrotask(() => this.flush());
  }

  /** Runs a queued rebuild now (someone resuming on a status change must see the catalog it leads to). */
  flush(): void {
    if (!this.#queued) return;
    this.#queued = false;
    this.rebuild();
  }

  /** An upstream listed: its lists are kept for the next start (the file is written only when they changed). */
  keepLists(id: string): void {
    const up = this.deps.pool().get(id);
    // Connected, not merely 'ready': a stopping or dropped upstream empties its lists before its status changes.
    if (up?.status === 'ready' && up.client) this.deps.kept.record(id, up.config, up);
  }

  /**
   * Which lists a server's new status puts in the catalog: the kept ones while it is not running but
   * will be, else its own (none once it is stopped, disabled, removed or given up on).
   */
  statusChanged(change: UpstreamStatusChange): void {
    const cfg = ownValue(this.deps.config().servers, change.server);
    const restarting = change.status === 'stopped' && this.deps.pool().get(change.server)?.restarting === true;
    if (change.status === 'idle' || change.status === 'needs-sign-in' || restarting) {
      // Not running (on first use, stopped when idle, or waiting for a sign-in): the last lists it gave
      // serve until a call starts it (or, for a sign-in, answer each call with what the user must do).
      // Stopped for a restart: they serve until the new process is ready, or has failed (#afterFailure).
      if (cfg && this.deps.kept.resume(change.server, cfg)) this.queue();
    } else if (change.status === 'error') {
      // Failed: whether it tries again is settled only after its status is told, so the rebuild decides.
      this.queue();
    } else if (change.status !== 'connecting') {
      // It answered, or stopped: from now on its own lists count, not the last ones. A ready one's lists
      // are queued now, before a call waiting for it (Upstream.whenTried) resumes and looks for its tool.
      if (this.deps.kept.settle(change.server) || change.status === 'ready') this.queue();
    }
  }

  /**
   * A server that failed: while it will try again (after a crash or a drop) the last lists it gave
   * serve, so a call of its tools says the server is not available rather than "Unknown tool"; once it
   * is given up on (a crash loop) they no longer do.
   */
  #afterFailure(up: Upstream): void {
    const cfg = ownValue(this.deps.config().servers, up.id);
    if (up.reconnecting && cfg) this.deps.kept.resume(up.id, cfg);
    else this.deps.kept.settle(up.id);
  }

  /**
   * Whether results of this tool may differ from the upstream's (then its outputSchema is not exposed, or
   * the client's SDK would reject the structuredContent): replaced by a preview, or with hidden secrets
   * replaced by their placeholders (which happens paused or not).
   */
  #mayRewriteResult(serverId: string, tool: Tool): boolean {
    const v = this.deps.policy.effective(serverId, tool.name, tool).values;
    if (hidesSecrets(v)) return true;
    return !this.deps.config().settings.paused && v.action !== 'pass' && v.thresholdTokens !== null;
  }

  /** Own tools as listed: read_result (and the like), plus dispatch when some tool is behind it. */
  #listedOwnTools(): Tool[] {
    const { catalog, spillTools } = this.deps;
    return catalog.toolEntries('dispatch').length > 0 ? [...spillTools, this.deps.dispatchTool()] : spillTools;
  }

  rebuild(): void {
    const { catalog, kept, policy } = this.deps;
    const config = this.deps.config();
    const withheld = new Map<string, Set<string>>();
    const upstreams = [...this.deps.pool().values()];
    for (const u of upstreams) if (u.status === 'error') this.#afterFailure(u);
    const sources = upstreams.flatMap((u): CatalogSource[] => {
      // A ready upstream's own lists; else the last lists it gave, while they stand in for it.
      const lists = u.status === 'ready' ? u : kept.standingIn(u.id);
      if (!lists) return [];
      withheld.set(u.id, policy.withheld(u.id, lists.tools));
      return [
        {
          id: u.id,
          // The config is the source of truth: a prefix changed by a policy applies without a restart.
          prefix: config.servers[u.id]?.prefix ?? u.config.prefix,
          tools: lists.tools,
          resources: lists.resources,
          resourceTemplates: lists.resourceTemplates,
          prompts: lists.prompts,
          ...(lists === u ? {} : { kept: true }),
        },
      ];
    });
    kept.retain(Object.keys(config.servers));
    const changed = catalog.rebuild(sources, {
      maxLength: config.settings.toolNameMaxLength,
      ownTools: () => this.#listedOwnTools(),
      reservedNames: [DISPATCH_TOOL_NAME],
      mayRewriteResult: (id, tool) => this.#mayRewriteResult(id, tool),
      toolShape: (id, tool) => policy.shape(id, tool, withheld.get(id)?.has(tool.name) ?? false),
      // Dispatch joins the listed own tools once anything is capped, so it counts against the cap too.
      capDirect: (direct) => policy.overCap(direct, this.deps.spillTools.length + 1),
    });
    for (const event of this.#clashes.fresh(catalog.clashes)) this.deps.emit(event);
    if (changed.tools) this.deps.onToolsChanged();
    if (!changed.tools && !changed.resources && !changed.prompts) return;
    this.deps.emit({
      type: 'catalog.changed',
      level: 'info',
      tools: catalog.toolCount(),
      resources: catalog.listResources().length,
      prompts: catalog.listPrompts().length,
    });
    for (const s of this.deps.sessions()) {
      if (s.closed || !s.server.transport) continue;
      if (changed.tools) void s.server.sendToolListChanged().catch(() => undefined);
      if (changed.resources) void s.server.sendResourceListChanged().catch(() => undefined);
      if (changed.prompts) void s.server.sendPromptListChanged().catch(() => undefined);
    }
  }
}
