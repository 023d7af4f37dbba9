/**
 * What an upstream offers, read in full: its tools, resources, resource templates and prompts, each list
 * followed through every page. Asked only for what the server's capabilities declare.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Prompt, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';

export interface UpstreamLists {
  tools: Tool[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  prompts: Prompt[];
}

/** Every page of one list (at most 1000; a cursor that repeats ends it). */
async function drain<T>(fetchPage: (cursor?: string) => Promise<{ items: T[]; nextCursor?: string }>): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const { items, nextCursor } = await fetchPage(cursor);
    all.push(...items);
    if (!nextCursor || nextCursor === cursor) break;
    cursor = nextCursor;
  }
  return all;
}

/** The server's lists; a server whose resource templates fail to list has none. */
export async function loadLists(client: Client): Promise<UpstreamLists> {
  const caps = client.getServerCapabilities() ?? {};
  const [tools, resources, resourceTemplates, prompts] = await Promise.all([
    caps.tools ? drain((cursor) => client.listTools({ cursor }).then((r) => ({ items: r.tools, nextCursor: r.nextCursor }))) : [],
    caps.resources ? drain((cursor) => client.listResources({ cursor }).then((r) => ({ items: r.resources, nextCursor: r.nextCursor }))) : [],
    caps.resources
      ? drain((cursor) => client.listResourceTemplates({ cursor }).then((r) => ({ items: r.resourceTemplates, nextCursor: r.nextCursor }))).catch(
          () => [] as ResourceTemplate[],
        )
      : [],
    caps.prompts ? drain((cursor) => client.listPrompts({ cursor }).then((r) => ({ items: r.prompts, nextCursor: r.nextCursor }))) : [],
  ]);
  return { tools, resources, resourceTemplates, prompts };
}
