/**
 * Control handlers for policies, dispatch exposure and tool pinning (issue 5). Every write is validated
 * against the connected servers first; an invalid policy is refused with the field named and nothing
 * changes. Valid changes are saved in the config file and applied without restarting upstreams.
 */
import type { HandlerMap } from './control-handlers.js';
import type { ToolExposure } from '../../../shared/api-policy.js';
import { validatePolicies, withServerPolicy, withToolPolicy, type ServerPolicy, type ToolPolicy } from '../../../shared/policy.js';
import { ControlError, type Hub } from '../hub.js';
import { SERVER_CONFIG_FIELDS } from '../policy/policy-runtime.js';

/** Refuses a policy for one tool or server, checked on its own (a stale entry elsewhere never blocks a write). */
function check(hub: Hub, candidate: { servers?: Record<string, ServerPolicy>; tools?: Record<string, Record<string, ToolPolicy>> }): void {
  const result = validatePolicies({ servers: candidate.servers ?? {}, tools: candidate.tools ?? {} }, hub.policy.known(hub.upstreams));
  if (!result.ok) throw new ControlError('invalid', result.message, result.field);
}

function upstreamTool(hub: Hub, server: string, tool: string) {
  return hub.upstreams.get(server)?.tools.find((t) => t.name === tool);
}

function requireServer(hub: Hub, server: string): void {
  if (!hub.config.servers[server]) {
    const known = Object.keys(hub.config.servers).join(', ') || '(none)';
    throw new ControlError('invalid', `server: no server "${server}" is configured (configured: ${known})`, 'server');
  }
}

export function policyHandlers(hub: Hub): HandlerMap {
  const effective = (server: string, tool: string) => hub.policy.effective(server, tool, upstreamTool(hub, server, tool));

  async function setTool(server: string, tool: string, policy: ToolPolicy | undefined, what: string) {
    if (policy && Object.keys(policy).length > 0) check(hub, { tools: { [server]: { [tool]: policy } } });
    else requireServer(hub, server);
    await hub.setPolicies(withToolPolicy(hub.config.policies, server, tool, policy), what, server);
    return effective(server, tool);
  }

  return {
    'policies.get': () => ({ policies: hub.config.policies, defaults: hub.config.settings.policy }),

    'policies.setTool': (req) => setTool(req.server, req.tool, req.policy, `policy of ${req.server}/${req.tool}`),

    'policies.resetTool': (req) => setTool(req.server, req.tool, undefined, `policy of ${req.server}/${req.tool} reset`),

    'policies.setServer': async (req) => {
      // enabled, prefix and timeoutMs belong to the server's own config; the rest to policies.servers.
      const policy: ServerPolicy = { ...req.policy };
      const fields: { enabled?: boolean; prefix?: boolean; timeoutMs?: number } = {};
      for (const key of SERVER_CONFIG_FIELDS) {
        if (policy[key] !== undefined) Object.assign(fields, { [key]: policy[key] });
        delete policy[key];
      }
      check(hub, { servers: { [req.server]: { ...policy, ...fields } } });
      const next = withServerPolicy(hub.config.policies, req.server, policy);
      if (JSON.stringify(next) !== JSON.stringify(hub.config.policies)) await hub.setPolicies(next, `policy of server ${req.server}`, req.server);
      if (Object.keys(fields).length > 0) await hub.setServerFields(req.server, fields);
      return hub.policy.effective(req.server, undefined);
    },

    'policies.setDefaults': async (req) => (await hub.setSettings({ policy: req })).policy,

    'policies.effective': (req) => {
      requireServer(hub, req.server);
      return effective(req.server, req.tool);
    },

    'policies.exposure': (): ToolExposure[] =>
      hub.catalog.toolEntries().map((e) => ({
        server: e.serverId,
        tool: e.original,
        name: e.name,
        exposure: e.state,
        ...(e.reason ? { reason: e.reason } : {}),
      })),

    'pins.pending': () => hub.policy.pins.pending(),

    'pins.approve': async (req) => ({ approved: await hub.approvePin(req.server, req.tool) }),
  };
}
