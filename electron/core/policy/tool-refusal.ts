/**
 * Why a tool the catalog knows may not be called: hidden by a policy, or withheld by its pin. Both a
 * direct call (call/refusal.ts) and a call through spillway__dispatch answer with these words.
 */
import type { ToolEntry } from '../catalog/catalog.js';

/** Why a catalog entry may not be called, or undefined when it may. */
export function refusalFor(entry: Pick<ToolEntry, 'name' | 'serverId' | 'state'>): string | undefined {
  if (entry.state === 'hidden') {
    return `Tool "${entry.name}" is turned off in Spillway (hidden by a policy for server "${entry.serverId}").`;
  }
  if (entry.state === 'withheld') {
    // Pins are kept by tool name: a renamed tool is a new tool, listed at once; only a known tool's change is held back.
    return (
      `Tool "${entry.name}" is withheld: server "${entry.serverId}" changed its definition (description or input schema) since ` +
      'Spillway first saw it. Ask the user to review and approve the change in Spillway before using it.'
    );
  }
  return undefined;
}
