/**
 * Name clashes as the log tells them: once when a clash appears, not again on each rebuild while it
 * stands (a rebuild follows every list change of every server), and again if it goes away and returns.
 */
import type { HubEventInput } from '../../../shared/events.js';
import type { CatalogClash } from '../catalog/catalog.js';

const LABEL: Record<CatalogClash['kind'], string> = { tool: 'Tool', prompt: 'Prompt', resource: 'Resource' };
/** How many URIs one line names; a server sharing many with another would fill the log. */
const URIS_NAMED = 3;

export class ClashReports {
  #standing = new Set<string>();

  /** The log events for the clashes of this rebuild that the last one did not have. */
  fresh(clashes: readonly CatalogClash[]): HubEventInput[] {
    const now = new Map(clashes.map((c) => [`${c.kind}\0${c.serverId}\0${c.name}\0${c.reason}`, c]));
    const fresh = [...now].filter(([key]) => !this.#standing.has(key)).map(([, c]) => c);
    this.#standing = new Set(now.keys());
    const events: HubEventInput[] = fresh
      .filter((c) => c.kind !== 'resource')
      .map((c) => ({ type: 'log', level: 'error', server: c.serverId, message: `${LABEL[c.kind]} hidden: ${c.reason}.` }));
    const resources = new Map<string, CatalogClash[]>();
    for (const c of fresh) if (c.kind === 'resource') resources.set(c.serverId, [...(resources.get(c.serverId) ?? []), c]);
    for (const [serverId, hidden] of resources)
      events.push({ type: 'log', level: 'warn', server: serverId, message: resourceMessage(serverId, hidden) });
    return events;
  }
}

function resourceMessage(serverId: string, hidden: CatalogClash[]): string {
  const next = "turn one of the two servers off to reach the other one's.";
  if (hidden.length === 1) return `Resource hidden: ${hidden[0].reason}; ${next}`;
  const named = hidden.slice(0, URIS_NAMED).map((c) => `"${c.name}"`);
  const more = hidden.length > URIS_NAMED ? ` and ${hidden.length - URIS_NAMED} more` : '';
  return `${hidden.length} resources of server "${serverId}" are hidden (${named.join(', ')}${more}): another server offers them too, which serves them; ${next}`;
}
