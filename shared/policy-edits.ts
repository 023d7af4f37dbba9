/**
 * Pure edits of the stored policies: one tool's or one server's replaced, a server's dropped or put
 * back. Split from policy.ts (which re-exports them). Runtime-neutral: no node:*, no electron, no DOM.
 */
import type { Policies, ServerPolicy, ToolPolicy } from './policy.js';
import { ownValue } from './records.js';

/** The policies with one tool's policy replaced (undefined or `{}` removes it). Pure. */
export function withToolPolicy(policies: Policies, serverId: string, toolName: string, policy: ToolPolicy | undefined): Policies {
  const serverTools = { ...(ownValue(policies.tools, serverId) ?? {}) };
  if (policy === undefined || Object.keys(policy).length === 0) delete serverTools[toolName];
  else serverTools[toolName] = policy;
  const tools = { ...policies.tools };
  if (Object.keys(serverTools).length === 0) delete tools[serverId];
  else tools[serverId] = serverTools;
  return { ...policies, tools };
}

/** The policies with one server's policy replaced (undefined or `{}` removes it). Pure. */
export function withServerPolicy(policies: Policies, serverId: string, policy: ServerPolicy | undefined): Policies {
  const servers = { ...policies.servers };
  if (policy === undefined || Object.keys(policy).length === 0) delete servers[serverId];
  else servers[serverId] = policy;
  return { ...policies, servers };
}

/** Drops everything kept for a server (when the server itself is removed). Pure. */
export function withoutServer(policies: Policies, serverId: string): Policies {
  const { [serverId]: _s, ...servers } = policies.servers;
  const { [serverId]: _t, ...tools } = policies.tools;
  return { servers, tools };
}

/** Everything kept for one server: its own policy and its tools' (held while a removed server can be put back). */
export interface ServerPolicies {
  server?: ServerPolicy;
  tools?: Record<string, ToolPolicy>;
}

/** What the policies keep for a server (empty when nothing). Pure. */
export function policiesOf(policies: Policies, serverId: string): ServerPolicies {
  const server = ownValue(policies.servers, serverId);
  const tools = ownValue(policies.tools, serverId);
  return { ...(server ? { server } : {}), ...(tools ? { tools } : {}) };
}

/** The policies with a server's own ones replaced by `kept` (what policiesOf gave). Pure. */
export function withServerPolicies(policies: Policies, serverId: string, kept: ServerPolicies): Policies {
  const rest = withoutServer(policies, serverId);
  return {
    servers: kept.server ? { ...rest.servers, [serverId]: kept.server } : rest.servers,
    tools: kept.tools ? { ...rest.tools, [serverId]: kept.tools } : rest.tools,
  };
}
