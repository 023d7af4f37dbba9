/**
 * Whether a tool policy's injected values (hidden parameters, overrides) still fit the tool's definition.
 * They are checked when the policy is saved, but the upstream may change the tool afterwards (a parameter
 * that took text now takes a whole number): the pending change is marked, and a call is refused rather
 * than sent with a value the tool refuses (its error would quote the hidden value to the model and the log).
 */
import type { KnownInputSchema, ToolPolicy } from '../../../shared/policy.js';
import { injectedParamProblem } from '../../../shared/policy-params.js';
import { injectedValueProblem } from './injected-values.js';

/** An injected value the tool's definition does not take. Safe to show and log: it never holds the value. */
export interface InjectedMisfit {
  /** The policy field, e.g. `tools.mail.send.hiddenParams.apiKey`. */
  field: string;
  /** The parameter's name, e.g. `apiKey`. */
  parameter: string;
  /** What is wrong, in a sentence, without the value (`The hidden value of "apiKey" must be a whole number, as the tool expects`). */
  message: string;
}

/** The first value of `policy` that the tool `tool` (of server `serverId`) does not take; undefined when all fit. */
export function injectedMisfit(
  serverId: string,
  tool: { name: string; inputSchema?: unknown },
  policy: Pick<ToolPolicy, 'hiddenParams' | 'paramOverrides'> | undefined,
): InjectedMisfit | undefined {
  if (!policy || (isEmpty(policy.hiddenParams) && isEmpty(policy.paramOverrides))) return undefined;
  const prefix = `tools.${serverId}.${tool.name}.`;
  const problem = injectedParamProblem(prefix.slice(0, -1), policy, knownSchema(tool.inputSchema), injectedValueProblem);
  if (!problem) return undefined;
  // `hiddenParams.apiKey`: the parameter is what follows the policy's key (a name may hold dots).
  const rest = problem.field.slice(prefix.length);
  const parameter = rest.slice(rest.indexOf('.') + 1);
  return { field: problem.field, parameter, message: problem.withoutValue };
}

/** A JSON object as the schema of the tool's arguments; undefined (nothing to check against) otherwise. */
function knownSchema(schema: unknown): KnownInputSchema | undefined {
  return typeof schema === 'object' && schema !== null && !Array.isArray(schema) ? (schema as KnownInputSchema) : undefined;
}

function isEmpty(values: Record<string, unknown> | undefined): boolean {
  return values === undefined || Object.keys(values).length === 0;
}

/** Why a call of `exposedName` is refused for `misfit`: for the model, the client and the log. */
export function misfitRefusal(exposedName: string, misfit: InjectedMisfit): string {
  return (
    `Tool "${exposedName}" was not called: the value Spillway's policy sends for "${misfit.parameter}" does not fit the ` +
    `tool (its server may have changed it). ${misfit.message}. The user can change or remove that value in ` +
    `Spillway's tool policies (${misfit.field}); the tool works again once it fits.`
  );
}
