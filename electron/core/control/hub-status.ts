/**
 * What the control API reports about a running hub: each upstream, the open sessions, the overall
 * status, and a server's tools with their schema cost.
 */
import type { Config } from '../../../shared/config.js';
import type { ListProblem, SessionInfo, Status, ToolSummary, UpstreamAuth, UpstreamInfo } from '../../../shared/api.js';
import { ownValue } from '../../../shared/records.js';
import type { Catalog } from '../catalog/catalog.js';
import type { DownstreamSession } from '../downstream/session.js';
import { redactText } from '../log/redact.js';
import type { SecretValues } from '../log/secret-values.js';
import type { Upstream } from '../upstream/upstream.js';
import { ControlError } from './control-error.js';
import type { ServerRevisions } from './server-revisions.js';
import { maskServerSecrets } from './server-secrets.js';

/** What the status reports read of the hub. */
export interface HubStatusDeps {
  config(): Config;
  upstreams: ReadonlyMap<string, Upstream>;
  sessions(): Iterable<DownstreamSession>;
  catalog: Pick<Catalog, 'toolCount' | 'toolEntries'>;
  /** Tokens a text costs a model (a tool's schema in tools/list). */
  countTokens(text: string): Promise<number>;
  /** Facts fixed at start: the version, where the hub listens and keeps its files. */
  facts(): Pick<Status, 'version' | 'endpoint' | 'dataDir' | 'configFile' | 'secrets'>;
  /** The known secret values (every env and header value, keys, tokens), masked in what servers print. */
  secrets: Pick<SecretValues, 'snapshot'>;
  /** A server's OAuth sign-in (issue 15). */
  auth?(id: string): UpstreamAuth;
  /** Each server's revision (an edit sends it back with upstreams.update). */
  revisions?: Pick<ServerRevisions, 'of'>;
}

/**
 * A server's refused lists, as the Upstream records them in `listProblems` when it loads its lists (its
 * clients' log hears of them too), the server's messages masked as its errors are. Read as optional: an
 * Upstream that records none has no such field.
 */
function listProblemsOf(up: Upstream | undefined, values: ReturnType<SecretValues['snapshot']>): { listProblems?: ListProblem[] } {
  const problems = (up as { listProblems?: readonly ListProblem[] } | undefined)?.listProblems ?? [];
  if (problems.length === 0) return {};
  return { listProblems: problems.map((p) => ({ list: p.list, message: redactText(p.message, values) })) };
}

export class HubStatus {
  constructor(private readonly deps: HubStatusDeps) {}

  /** One configured server as the control API shows it (secrets masked); throws not_found for an unknown id. */
  upstreamInfo(id: string): UpstreamInfo {
    const up = this.deps.upstreams.get(id);
    const cfg = ownValue(this.deps.config().servers, id);
    if (!cfg) throw new ControlError('not_found', `No server with id "${id}"`, 'id');
    const values = this.deps.secrets.snapshot();
    return {
      id,
      config: maskServerSecrets(cfg),
      ...(this.deps.revisions ? { revision: this.deps.revisions.of(id, cfg) } : {}),
      status: up?.status ?? (cfg.enabled ? 'stopped' : 'disabled'),
      // The error quotes the server's last stderr lines, which may echo its env.
      ...(up?.error ? { error: redactText(up.error, values) } : {}),
      // Not connected (on first use, or still starting): the tools its kept lists serve meanwhile.
      tools: up?.client ? up.tools.length : this.deps.catalog.toolEntries().filter((t) => t.serverId === id).length,
      resources: up?.resources.length ?? 0,
      prompts: up?.prompts.length ?? 0,
      stderrTail: (up?.stderrTail() ?? []).slice(-50).map((l) => redactText(l, values)),
      ...(up?.serverInfo ? { serverInfo: { name: up.serverInfo.name, version: up.serverInfo.version } } : {}),
      restarts: up?.restarts ?? 0,
      ...(this.deps.auth ? { auth: this.deps.auth(id) } : {}),
      ...listProblemsOf(up, values),
    };
  }

  listUpstreams(): UpstreamInfo[] {
    return Object.keys(this.deps.config().servers).map((id) => this.upstreamInfo(id));
  }

  sessionInfos(): SessionInfo[] {
    return [...this.deps.sessions()].map((s) => ({
      id: s.id,
      transport: s.kind,
      ...(s.clientName ? { client: s.clientName } : {}),
      ...(s.clientVersion ? { clientVersion: s.clientVersion } : {}),
      openedAt: s.openedAt,
      lastActivity: s.lastActivity,
    }));
  }

  /** The whole hub at a glance (the `status` method, the tray). */
  report(): Status {
    const facts = this.deps.facts();
    return {
      version: facts.version,
      endpoint: facts.endpoint,
      dataDir: facts.dataDir,
      configFile: facts.configFile,
      ...(facts.secrets ? { secrets: facts.secrets } : {}),
      paused: this.deps.config().settings.paused,
      upstreams: this.listUpstreams(),
      sessions: this.sessionInfos(),
      tools: this.deps.catalog.toolCount(),
    };
  }

  /**
   * A server's tools as clients see them, with the tokens each schema costs in tools/list and the
   * upstream's own input schema (what the policy editor types hidden values by).
   */
  async toolSummaries(id: string): Promise<ToolSummary[]> {
    if (!ownValue(this.deps.config().servers, id)) throw new ControlError('not_found', `No server with id "${id}"`, 'id');
    const tools = this.deps.catalog.toolEntries().filter((t) => t.serverId === id);
    return Promise.all(
      tools.map(async (t) => ({
        name: t.name,
        original: t.original,
        ...(t.exposed.description ? { description: t.exposed.description } : {}),
        schemaTokens: await this.deps.countTokens(JSON.stringify(t.exposed)),
        // The upstream's schema, not the exposed one: hidden parameters are removed from that.
        inputSchema: t.upstream.inputSchema,
      })),
    );
  }
}
