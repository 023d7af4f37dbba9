/**
 * Control handlers for policies, dispatch exposure and tool pinning (issue 5). Every write is validated
 * against the connected servers first; an invalid policy is refused with the field named and nothing
 * changes. Valid changes are saved in the config file and applied without restarting upstreams.
 */
import type { HandlerMap } from './control-handlers.js';
import type { ToolExposure } from '../../../shared/api-policy.js';
import { validatePolicies, withServerPolicy, withToolPolicy, type ServerPolicy, type ToolPolicy } from '../../../shared/policy.js';
import { ownValue } from '../../../shared/records.js';
import { previewWarning } from '../../../shared/spill-advice.js';
import type { EffectivePolicy } from '../../../shared/policy.js';
import { injectedValueProblem } from '../policy/injected-values.js';
import { SERVER_CONFIG_FIELDS } from '../policy/policy-runtime.js';
import { idleFieldWarnings } from '../policy/resolve.js';
import { ControlError } from './control-error.js';
import type { ControlParts } from './control-parts.js';

/** What the policy handlers use of the control side. */
type PolicyParts = Pick<ControlParts, 'control' | 'config' | 'upstreams' | 'policy' | 'catalog'>;

/**
 * Refuses a policy for one tool or server, checked on its own (a stale entry elsewhere never blocks a
 * write); injected values are checked against the tool's schema in full (injected-values.ts).
 */
function check(parts: PolicyParts, candidate: { servers?: Record<string, ServerPolicy>; tools?: Record<string, Record<string, ToolPolicy>> }): void {
  const result = validatePolicies(
    { servers: candidate.servers ?? {}, tools: candidate.tools ?? {} },
    { ...parts.policy.known(parts.upstreams, parts.catalog), checkValue: injectedValueProblem },
  );
  if (!result.ok) throw new ControlError('invalid', result.message, result.field);
}

/**
 * The upstream tool (for its readOnlyHint): from the running server, else as the catalog kept it from the
 * last run — an idle server (started on first use) lists nothing, yet its calls are cached by that hint.
 */
function upstreamTool(parts: PolicyParts, server: string, tool: string) {
  return (
    parts.upstreams.get(server)?.tools.find((t) => t.name === tool) ??
    parts.catalog.toolEntries().find((e) => e.serverId === server && e.original === tool)?.upstream
  );
}

function requireServer(parts: PolicyParts, server: string): void {
  const servers = parts.config().servers;
  if (!ownValue(servers, server)) {
    const known = Object.keys(servers).join(', ') || '(none)';
    throw new ControlError('invalid', `server: no server "${server}" is configured (configured: ${known})`, 'server');
  }
}

/**
 * Refuses a server or tool named `__proto__`: zod drops such a key without a word, so the write would
 * answer ok and save nothing (server ids cannot take the name either: SERVER_ID_PATTERN).
 */
function refuseReservedNames(names: { server: string; tool?: string }): void {
  for (const [field, name] of Object.entries(names))
    if (name === '__proto__')
      throw new ControlError('invalid', `${field}: "__proto__" cannot be used as a ${field} name in a policy: pick another ${field}`, field);
}

/**
 * The effective values with a warning when they work against themselves (issue 14, item 5), and for a
 * tool's own fields that do nothing as set (`tool`: its policy).
 */
function advised(policy: EffectivePolicy, tool?: ToolPolicy): EffectivePolicy {
  const preview = previewWarning(policy.values.thresholdTokens, policy.values.previewTokens);
  const warnings = [...(preview ? [preview] : []), ...idleFieldWarnings(tool, policy.values.action)];
  return warnings.length > 0 ? { ...policy, warnings } : policy;
}

/** What a pending entry with a policy problem says to do. */
const MISFIT_NEXT = 'Once you approve the change, calls of the tool are refused until you change or remove that value.';

export function policyHandlers(parts: PolicyParts): HandlerMap {
  const effective = (server: string, tool: string) => {
    const own = ownValue(parts.config().policies.tools, server);
    return advised(parts.policy.effective(server, tool, upstreamTool(parts, server, tool)), own && ownValue(own, tool));
  };

  async function setTool(server: string, tool: string, policy: ToolPolicy | undefined, what: string) {
    refuseReservedNames({ server, tool });
    if (policy && Object.keys(policy).length > 0) check(parts, { tools: { [server]: { [tool]: policy } } });
    else requireServer(parts, server);
    // Made of the policies as they are when the change saves (another change may come first).
    await parts.control.setPolicies((current) => withToolPolicy(current, server, tool, policy), what, server);
    return effective(server, tool);
  }

  return {
    'policies.get': () => ({ policies: parts.config().policies, defaults: parts.config().settings.policy }),

    'policies.setTool': (req) => setTool(req.server, req.tool, req.policy, `policy of ${req.server}/${req.tool}`),

    'policies.resetTool': (req) => setTool(req.server, req.tool, undefined, `policy of ${req.server}/${req.tool} reset`),

    'policies.setServer': async (req) => {
      refuseReservedNames({ server: req.server });
      // enabled, prefix and timeoutMs belong to the server's own config; the rest to policies.servers.
      const policy: ServerPolicy = { ...req.policy };
      const fields: { enabled?: boolean; prefix?: boolean; timeoutMs?: number } = {};
      for (const key of SERVER_CONFIG_FIELDS) {
        if (policy[key] !== undefined) Object.assign(fields, { [key]: policy[key] });
        delete policy[key];
      }
      check(parts, { servers: { [req.server]: { ...policy, ...fields } } });
      await parts.control.setPolicies(
        (current) => {
          const next = withServerPolicy(current, req.server, policy);
          return JSON.stringify(next) === JSON.stringify(current) ? undefined : next;
        },
        `policy of server ${req.server}`,
        req.server,
      );
      if (Object.keys(fields).length > 0) await parts.control.setServerFields(req.server, fields);
      return advised(parts.policy.effective(req.server, undefined));
    },

    'policies.setDefaults': async (req) => (await parts.control.setSettings({ policy: req })).policy,

    'policies.effective': (req) => {
      requireServer(parts, req.server);
      return effective(req.server, req.tool);
    },

    'policies.exposure': (): ToolExposure[] =>
      parts.catalog.toolEntries().map((e) => ({
        server: e.serverId,
        tool: e.original,
        name: e.name,
        exposure: e.state,
        ...(e.reason ? { reason: e.reason } : {}),
      })),

    'pins.pending': () =>
      parts.policy.pins.pending().map((pin) => {
        const misfit = parts.policy.pendingMisfit(pin.server, pin.tool);
        return misfit ? { ...pin, policyProblem: { field: misfit.field, message: `${misfit.message}. ${MISFIT_NEXT}` } } : pin;
      }),

    'pins.approve': async (req) => ({ approved: await parts.control.approvePin(req.server, req.tool) }),
  };
}
