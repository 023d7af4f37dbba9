/**
 * The merged view of every ready upstream: namespaced tools and prompts, resources and templates routed
 * back to their server by URI. Rebuilt whenever an upstream connects, drops or changes a list.
 */
import type { Prompt, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import type { ToolExposure } from '../../../shared/api-policy.js';
import { assignNames, exposedName, type NamedItem } from './tool-names.js';
import { compareText } from '../../../shared/plain-text.js';

/** Where a tool is reachable: listed, behind spillway__dispatch, or not at all (hidden, withheld by a pin). */
export type ToolState = ToolExposure['exposure'];
export type ToolStateReason = NonNullable<ToolExposure['reason']>;

/**
 * What the policies make of one upstream tool (policy/ decides; the catalog only places the result, so it
 * imports neither policy/ nor compress/).
 */
export interface ToolShape {
  state: ToolState;
  reason?: ToolStateReason;
  /** The definition clients see, under the upstream's name (the catalog renames it); default: the upstream's. */
  exposed?: Tool;
}

export interface CatalogSource {
  id: string;
  prefix: boolean;
  tools: Tool[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  prompts: Prompt[];
  /** The lists are the last run's (kept-catalog.ts): the upstream is still starting. */
  kept?: boolean;
}

export interface ToolEntry {
  name: string;
  serverId: string;
  original: string;
  /** The upstream's definition, untouched. */
  upstream: Tool;
  /** What clients see (description override, hidden parameters removed). */
  exposed: Tool;
  state: ToolState;
  reason?: ToolStateReason;
  /** Known from the last run's catalog only: its upstream is still starting (a call waits for it). */
  kept?: true;
}

export interface PromptEntry {
  name: string;
  serverId: string;
  original: string;
  exposed: Prompt;
}

export interface CatalogOptions {
  maxLength: number;
  /**
   * Spillway's own tools, listed first; their names are reserved. Read once before names are assigned
   * and again after the tools are in place (spillway__dispatch describes what is behind it).
   */
  ownTools: () => Tool[];
  /** Whether a tool's results may be replaced (spilled/truncated): such tools lose their outputSchema. */
  mayRewriteResult: (serverId: string, tool: Tool) => boolean;
  /** More names no upstream tool may take (own tools not listed right now, e.g. spillway__dispatch). */
  reservedNames?: string[];
  /** What the policies make of a tool (default: listed as the upstream has it). */
  toolShape?: (serverId: string, tool: Tool) => ToolShape;
  /** The cap on listed tools: of the tools in state 'direct', the names to move behind dispatch. */
  capDirect?: (direct: ToolEntry[]) => ReadonlySet<string>;
}

const AS_IS: ToolShape = { state: 'direct' };

/** Something a server offers that clients do not see, because another item has its name (or URI, or URI template). */
export interface CatalogClash {
  kind: 'tool' | 'prompt' | 'resource';
  serverId: string;
  /** The exposed name (a resource's URI, a resource template's uriTemplate). */
  name: string;
  reason: string;
}

/**
 * How specific a URI template is: the length of its literal text before the first variable (longer is more
 * specific: notes://team/{name} over notes://{+path}), then how many variables it has (fewer is more specific).
 */
function templateRank(uriTemplate: string): [prefix: number, variables: number] {
  const first = uriTemplate.indexOf('{');
  const expressions = uriTemplate.match(/\{[^}]*\}/g) ?? [];
  const variables = expressions.reduce((n, e) => n + e.split(',').length, 0);
  return [first === -1 ? uriTemplate.length : first, variables];
}

/** A template's matcher; undefined for one the SDK cannot parse (listed, but no URI is routed by it). */
function uriMatcher(uriTemplate: string): UriTemplate | undefined {
  try {
    return new UriTemplate(uriTemplate);
  } catch {
    return undefined;
  }
}

/**
 * Names for hidden tools, given the names taken: their usual one when free, else (it clashes with a tool
 * that is not hidden) a name with their server and a hash, so that the window still lists them to show
 * again. Never listed to clients, so no clash is reported.
 */
function hiddenNames<T extends NamedItem>(items: T[], maxLength: number, taken: Iterable<string>): Map<string, T> {
  const assigned = assignNames(items, maxLength, taken);
  const used = new Set([...taken, ...assigned.names.keys()]);
  for (const { item } of assigned.clashes) {
    // As assignNames does for a prefixed name someone has: a longer hash each try.
    let name = '';
    for (let len = 6; len <= 16 && (name === '' || used.has(name)); len += 2) {
      name = exposedName(item.serverId, item.original, { prefix: true, maxLength }, len, true);
    }
    if (used.has(name)) continue;
    used.add(name);
    assigned.names.set(name, item);
  }
  return assigned.names;
}

/** Compares two catalogs by what clients would see. */
function fingerprint(value: unknown): string {
  return JSON.stringify(value);
}

export class Catalog {
  #tools = new Map<string, ToolEntry>();
  #prompts = new Map<string, PromptEntry>();
  #resources: { serverId: string; resource: Resource }[] = [];
  #templates: { serverId: string; template: ResourceTemplate; matcher: UriTemplate | undefined; rank: [number, number] }[] = [];
  #uriOwner = new Map<string, string>();
  #ownTools: Tool[] = [];
  #fingerprints = { tools: '', resources: '', prompts: '' };
  clashes: CatalogClash[] = [];

  /** Rebuilds from the sources; returns which lists changed (for list_changed notifications). */
  rebuild(sources: CatalogSource[], options: CatalogOptions): { tools: boolean; resources: boolean; prompts: boolean } {
    const reserved = [...new Set([...options.ownTools().map((t) => t.name), ...(options.reservedNames ?? [])])];
    const toolItems = sources.flatMap((s) =>
      s.tools.map((tool) => ({
        serverId: s.id,
        original: tool.name,
        prefix: s.prefix,
        tool,
        kept: s.kept === true,
        shape: options.toolShape?.(s.id, tool) ?? AS_IS,
      })),
    );
    // Hidden tools are named after the others, so hiding a tool frees its name (prefix off) for another
    // server's tool of that name; the names of tools not hidden do not depend on them.
    const assigned = assignNames(
      toolItems.filter((item) => item.shape.state !== 'hidden'),
      options.maxLength,
      reserved,
    );
    const hidden = hiddenNames(
      toolItems.filter((item) => item.shape.state === 'hidden'),
      options.maxLength,
      [...reserved, ...assigned.names.keys()],
    );
    const tools = new Map<string, ToolEntry>();
    for (const [name, item] of [...assigned.names, ...hidden].sort(([a], [b]) => compareText(a, b))) {
      const shape = item.shape;
      const exposed: Tool = { ...(shape.exposed ?? item.tool), name };
      if (exposed.outputSchema && options.mayRewriteResult(item.serverId, item.tool)) delete exposed.outputSchema;
      tools.set(name, {
        name,
        serverId: item.serverId,
        original: item.original,
        upstream: item.tool,
        exposed,
        state: shape.state,
        ...(shape.reason ? { reason: shape.reason } : {}),
        ...(item.kept ? { kept: true as const } : {}),
      });
    }
    if (options.capDirect) {
      const moved = options.capDirect([...tools.values()].filter((e) => e.state === 'direct'));
      for (const name of moved) {
        const entry = tools.get(name);
        if (entry?.state === 'direct') tools.set(name, { ...entry, state: 'dispatch', reason: 'cap' });
      }
    }
    const promptItems = sources.flatMap((s) => s.prompts.map((prompt) => ({ serverId: s.id, original: prompt.name, prefix: s.prefix, prompt })));
    const promptNames = assignNames(promptItems, options.maxLength);
    const prompts = new Map<string, PromptEntry>();
    for (const [name, item] of [...promptNames.names].sort(([a], [b]) => compareText(a, b))) {
      prompts.set(name, { name, serverId: item.serverId, original: item.original, exposed: { ...item.prompt, name } });
    }
    const clashes: CatalogClash[] = [
      ...assigned.clashes.map((c) => ({ kind: 'tool' as const, serverId: c.item.serverId, name: c.name, reason: c.reason })),
      ...promptNames.clashes.map((c) => ({ kind: 'prompt' as const, serverId: c.item.serverId, name: c.name, reason: c.reason })),
    ];

    this.#uriOwner = new Map();
    this.#resources = [];
    for (const s of sources) {
      for (const resource of s.resources) {
        const owner = this.#uriOwner.get(resource.uri);
        // The first server (stable order) owns a shared URI.
        if (owner !== undefined) {
          if (owner !== s.id) {
            const reason = `"${resource.uri}" from server "${s.id}" is offered by "${owner}" too, which serves it`;
            clashes.push({ kind: 'resource', serverId: s.id, name: resource.uri, reason });
          }
          continue;
        }
        this.#uriOwner.set(resource.uri, s.id);
        this.#resources.push({ serverId: s.id, resource });
      }
    }
    // As with URIs, the first server (stable order) owns a template two offer: reads of it would reach only that one.
    this.#templates = [];
    const templateOwner = new Map<string, string>();
    for (const s of sources) {
      for (const template of s.resourceTemplates) {
        const owner = templateOwner.get(template.uriTemplate);
        if (owner !== undefined) {
          if (owner !== s.id) {
            const reason = `resource template "${template.uriTemplate}" from server "${s.id}" is offered by "${owner}" too, which serves it`;
            clashes.push({ kind: 'resource', serverId: s.id, name: template.uriTemplate, reason });
          }
          continue;
        }
        templateOwner.set(template.uriTemplate, s.id);
        this.#templates.push({ serverId: s.id, template, matcher: uriMatcher(template.uriTemplate), rank: templateRank(template.uriTemplate) });
      }
    }
    this.clashes = clashes;
    this.#tools = tools;
    this.#prompts = prompts;
    this.#ownTools = options.ownTools();

    const next = {
      tools: fingerprint(this.listTools()),
      resources: fingerprint([this.listResources(), this.listResourceTemplates()]),
      prompts: fingerprint(this.listPrompts()),
    };
    const changed = {
      tools: next.tools !== this.#fingerprints.tools,
      resources: next.resources !== this.#fingerprints.resources,
      prompts: next.prompts !== this.#fingerprints.prompts,
    };
    this.#fingerprints = next;
    return changed;
  }

  /** What tools/list shows: Spillway's own tools, then every tool in state 'direct'. */
  listTools(): Tool[] {
    return [...this.#ownTools, ...this.toolEntries('direct').map((e) => e.exposed)];
  }

  /** Any known tool by its exposed name, whatever its state (callers refuse hidden and withheld ones). */
  tool(name: string): ToolEntry | undefined {
    return this.#tools.get(name);
  }

  /** Every upstream tool (all states), or those in one state. */
  toolEntries(state?: ToolState): ToolEntry[] {
    const all = [...this.#tools.values()];
    return state === undefined ? all : all.filter((e) => e.state === state);
  }

  /** Tools listed in tools/list (own tools included). */
  toolCount(): number {
    return this.#ownTools.length + this.toolEntries('direct').length;
  }

  listPrompts(): Prompt[] {
    return [...this.#prompts.values()].map((e) => e.exposed);
  }

  prompt(name: string): PromptEntry | undefined {
    return this.#prompts.get(name);
  }

  listResources(): Resource[] {
    return this.#resources.map((r) => r.resource);
  }

  listResourceTemplates(): ResourceTemplate[] {
    return this.#templates.map((t) => t.template);
  }

  /**
   * The server a resource URI belongs to: listed resources first, then the most specific template that
   * matches (templateRank), the first in server order among equals.
   */
  serverForUri(uri: string): string | undefined {
    const owner = this.#uriOwner.get(uri);
    if (owner) return owner;
    let best: { serverId: string; rank: [number, number] } | undefined;
    for (const t of this.#templates) {
      if (!t.matcher?.match(uri)) continue;
      const { rank } = t;
      if (!best || rank[0] > best.rank[0] || (rank[0] === best.rank[0] && rank[1] < best.rank[1])) best = t;
    }
    if (best) return best.serverId;
    const servers = new Set([...this.#resources.map((r) => r.serverId), ...this.#templates.map((t) => t.serverId)]);
    return servers.size === 1 ? [...servers][0] : undefined;
  }

  /** The server a resource template (by its uriTemplate) belongs to. */
  serverForTemplate(uriTemplate: string): string | undefined {
    return this.#templates.find((t) => t.template.uriTemplate === uriTemplate)?.serverId;
  }
}
