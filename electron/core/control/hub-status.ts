/**
 * What the control API reports about a running hub: each upstream, the open sessions, the overall
 * status, and a server's tools with their schema cost.
 */
import type { ServerConfig } from '../../shared/config.js';
import type { SessionInfo, Status, ToolSummary, UpstreamInfo } from '../../shared/api.js';
import { ControlError } from './control-error.js';
import type { Hub } from './hub.js';
import { redactSecrets } from './log/redact.js';

/** One configured server as the control API shows it (secrets masked); throws not_found for an unknown id. */
export function upstreamInfo(hub: Hub, id: string): UpstreamInfo {
  const up = hub.upstreams.get(id);
  const cfg = hub.config.servers[id];
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

export function listUpstreams(hub: Hub): UpstreamInfo[] {
  return Object.keys(hub.config.servers).map((id) => hub.upstreamInfo(id));
}

export function sessionInfos(hub: Hub): SessionInfo[] {
  return [...hub.sessions.values()].map((s) => ({
    id: s.id,
    transport: s.kind,
    ...(s.clientName ? { client: s.clientName } : {}),
    ...(s.clientVersion ? { clientVersion: s.clientVersion } : {}),
    openedAt: s.openedAt,
    lastActivity: s.lastActivity,
  }));
}

export function hubStatus(hub: Hub): Status {
  return {
    version: hub.options.version,
    endpoint: hub.url,
    dataDir: hub.options.paths.dataDir,
    configFile: hub.options.paths.configFile,
    paused: hub.config.settings.paused,
    upstreams: hub.listUpstreams(),
    sessions: hub.sessionInfos(),
    tools: hub.catalog.toolCount(),
  };
}

/** A server's tools as clients see them, with the tokens each schema costs in tools/list. */
export async function toolSummaries(hub: Hub, id: string): Promise<ToolSummary[]> {
  if (!hub.config.servers[id]) throw new ControlError('not_found', `No server with id "${id}"`, 'id');
  const tools = hub.catalog.toolEntries().filter((t) => t.serverId === id);
  return Promise.all(
    tools.map(async (t) => ({
      name: t.name,
      original: t.original,
      ...(t.exposed.description ? { description: t.exposed.description } : {}),
      schemaTokens: await hub.spill.counter.count(JSON.stringify(t.exposed)),
    })),
  );
}
