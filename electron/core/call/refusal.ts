/**
 * Request stage: a tool the catalog lists but that may not be called (hidden by a policy, withheld by a
 * pin) is refused with a result the model can act on, and a warning in the log.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { HubEventInput } from '../../../shared/events.js';
import type { ToolEntry } from '../catalog/catalog.js';
import { errorResult } from './relay-errors.js';

/** Why a catalog entry may not be called, or undefined when it may. */
export function refusalFor(entry: ToolEntry): string | undefined {
  if (entry.state === 'hidden') {
    return `Tool "${entry.name}" is turned off in Spillway (hidden by a policy for server "${entry.serverId}").`;
  }
  if (entry.state === 'withheld') {
    return (
      `Tool "${entry.name}" is withheld: server "${entry.serverId}" changed its definition (name, description or ` +
      'input schema) since Spillway first saw it. Ask the user to review and approve the change in Spillway before using it.'
    );
  }
  return undefined;
}

/** The answer to a call that may not be made (and its log line), or undefined when it may. */
export function refuse(entry: ToolEntry, emit: (event: HubEventInput) => void): CallToolResult | undefined {
  const refusal = refusalFor(entry);
  if (!refusal) return undefined;
  emit({ type: 'log', level: 'warn', server: entry.serverId, message: `Refused a call to ${entry.name}: ${refusal}` });
  return errorResult(refusal);
}
