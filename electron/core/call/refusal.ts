/**
 * Request stage: a tool the catalog lists but that may not be called (hidden by a policy, withheld by a
 * pin) is refused with a result the model can act on, and a warning in the log.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { HubEventInput } from '../../../shared/events.js';
import type { ToolEntry } from '../catalog/catalog.js';
import { refusalFor } from '../policy/tool-refusal.js';
import { errorResult } from './relay-errors.js';

/** The answer to a call that may not be made (and its log line), or undefined when it may. */
export function refuse(entry: ToolEntry, emit: (event: HubEventInput) => void): CallToolResult | undefined {
  const refusal = refusalFor(entry);
  if (!refusal) return undefined;
  emit({ type: 'log', level: 'warn', server: entry.serverId, message: `Refused a call to ${entry.name}: ${refusal}` });
  return errorResult(refusal);
}
