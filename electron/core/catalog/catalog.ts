/**
 * The merged view of every ready upstream: namespaced tools and prompts, resources and templates routed
 * back to their server by URI. Rebuilt whenever an upstream connects, drops or changes a list.
 */
import type { Prompt, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { assignNames } from './tool-names.js';

export interface CatalogSource {
  id: string;
  prefix: boolean;
  tools: Tool[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  prompts: Prompt[];
}

export interface ToolEntry {
  name: string;
  serverId: string;
  original: string;
  /** The upstream's definition, untouched. */
  upstream: Tool;
  /** What clients see. */
  exposed: Tool;
}

export interface PromptEntry {
  name: string;
  serverId: string;
  original: string;
  exposed: Prompt;
}

export interface CatalogOptions {
  maxLength: number;
  /** Spillway's own tools, listed first; their names are reserved. */
  ownTools: Tool[];
  /** Whether a tool's results may be replaced (spilled/truncated): such tools lose their outputSchema. */
  mayRewriteResult: (serverId: string, tool: Tool) => boolean;
}

export interface CatalogClash {
  serverId: string;
  name: string;
  reason: string;
}

/** Compares two catalogs by what clients would see. */
function fingerprint(value: unknown): string {
  return JSON.stringify(value);
}

export class Catalog {
  #tools = new Map<string, ToolEntry>();
  #prompts = new Map<string, PromptEntry>();
  #resources: { serverId: string; resource: Resource }[] = [];
  #templates: { serverId: string; template: ResourceTemplate; matcher: UriTemplate | undefined }[] = [];
  #uriOwner = new Map<string, string>();
  #ownTools: Tool[] = [];
  #fingerprints = { tools: '', resources: '', prompts: '' };
  clashes: CatalogClash[] = [];

  /** Rebuilds from the sources; returns which lists changed (for list_changed notifications). */
  rebuild(sources: CatalogSource[], options: CatalogOptions): { tools: boolean; resources: boolean; prompts: boolean } {
    this.#ownTools = options.ownTools;
    const reserved = options.ownTools.map((t) => t.name);
    const toolItems = sources.flatMap((s) =>
      s.tools.map((tool) => ({ serverId: s.id, original: tool.name, prefix: s.prefix, tool })),
    );
    const assigned = assignNames(toolItems, options.maxLength, reserved);
    const tools = new Map<string, ToolEntry>();
    for (const [name, item] of [...assigned.names].sort(([a], [b]) => a.localeCompare(b))) {
      const exposed: Tool = { ...item.tool, name };
      if (exposed.outputSchema && options.mayRewriteResult(item.serverId, item.tool)) delete exposed.outputSchema;
      tools.set(name, { name, serverId: item.serverId, original: item.original, upstream: item.tool, exposed });
    }
    const promptItems = sources.flatMap((s) =>
      s.prompts.map((prompt) => ({ serverId: s.id, original: prompt.name, prefix: s.prefix, prompt })),
    );
    const promptNames = assignNames(promptItems, options.maxLength);
    const prompts = new Map<string, PromptEntry>();
    for (const [name, item] of [...promptNames.names].sort(([a], [b]) => a.localeCompare(b))) {
      prompts.set(name, { name, serverId: item.serverId, original: item.original, exposed: { ...item.prompt, name } });
    }
    this.clashes = [...assigned.clashes, ...promptNames.clashes].map((c) => ({
      serverId: c.item.serverId,
      name: c.name,
      reason: c.reason,
    }));

    this.#uriOwner = new Map();
    this.#resources = [];
    for (const s of sources) {
      for (const resource of s.resources) {
        if (this.#uriOwner.has(resource.uri)) continue; // first server (stable order) owns a shared URI
        this.#uriOwner.set(resource.uri, s.id);
        this.#resources.push({ serverId: s.id, resource });
      }
    }
    this.#templates = sources.flatMap((s) =>
      s.resourceTemplates.map((template) => {
        let matcher: UriTemplate | undefined;
        try {
          matcher = new UriTemplate(template.uriTemplate);
        } catch {
          matcher = undefined;
        }
        return { serverId: s.id, template, matcher };
      }),
    );
    this.#tools = tools;
    this.#prompts = prompts;

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

  listTools(): Tool[] {
    return [...this.#ownTools, ...[...this.#tools.values()].map((e) => e.exposed)];
  }

  tool(name: string): ToolEntry | undefined {
    return this.#tools.get(name);
  }

  toolEntries(): ToolEntry[] {
    return [...this.#tools.values()];
  }

  toolCount(): number {
    return this.#tools.size + this.#ownTools.length;
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

  /** The server a resource URI belongs to: listed resources first, then templates that match. */
  serverForUri(uri: string): string | undefined {
    const owner = this.#uriOwner.get(uri);
    if (owner) return owner;
    for (const t of this.#templates) {
      if (t.matcher?.match(uri)) return t.serverId;
    }
    const servers = new Set([...this.#resources.map((r) => r.serverId), ...this.#templates.map((t) => t.serverId)]);
    return servers.size === 1 ? [...servers][0] : undefined;
  }

  /** The server a resource template (by its uriTemplate) belongs to. */
  serverForTemplate(uriTemplate: string): string | undefined {
    return this.#templates.find((t) => t.template.uriTemplate === uriTemplate)?.serverId;
  }
}
