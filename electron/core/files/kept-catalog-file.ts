/**
 * The file of the kept catalog (catalog/kept-catalog.ts): per upstream, its lists as last listed, in the
 * data folder. Read once at start; written atomically (AtomicFile) when an upstream's lists change. It is
 * a cache: a missing or unreadable file means "nothing kept", and an upstream entry that does not parse
 * is dropped on its own (it is served to clients, so it is checked against the MCP schemas).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import {
  PromptSchema,
  ResourceSchema,
  ResourceTemplateSchema,
  ToolSchema,
  type Prompt,
  type Resource,
  type ResourceTemplate,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { AtomicFile, removeStaleTemps } from './atomic-file.js';

export const KEPT_CATALOG_FILE = 'kept-catalog.json';

const FILE_VERSION = 1;

/** One upstream's lists as it last listed them, and what they were listed under. */
export interface KeptUpstream {
  /** A digest of the server's connection config when it listed these (catalog/kept-catalog.ts's serverConfigKey). */
  config: string;
  /** When it listed them (ISO time). */
  listedAt: string;
  tools: Tool[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  prompts: Prompt[];
}

const KeptUpstreamSchema = z.object({
  config: z.string(),
  listedAt: z.string(),
  tools: z.array(ToolSchema),
  resources: z.array(ResourceSchema),
  resourceTemplates: z.array(ResourceTemplateSchema),
  prompts: z.array(PromptSchema),
});

export interface KeptCatalogRead {
  upstreams: Map<string, KeptUpstream>;
  /** Why the file (or part of it) was not used, for the log. */
  problems: string[];
}

/** The kept catalog's path in a data folder. */
export function keptCatalogPath(dataDir: string): string {
  return join(dataDir, KEPT_CATALOG_FILE);
}

/** Reads the kept catalog; never throws (a cache that cannot be read is an empty one). */
export async function readKeptCatalog(path: string): Promise<KeptCatalogRead> {
  await removeStaleTemps(path); // left by a write a crash interrupted
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { upstreams: new Map(), problems: code === 'ENOENT' ? [] : [`${path}: ${(err as Error).message}`] };
  }
  return parseKeptCatalog(text, path);
}

/** Parses the file's text: the entries that hold, and what was dropped. */
export function parseKeptCatalog(text: string, path = KEPT_CATALOG_FILE): KeptCatalogRead {
  const upstreams = new Map<string, KeptUpstream>();
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { upstreams, problems: [`${path} is not JSON (${(err as Error).message}); nothing kept from the last run`] };
  }
  const { version, upstreams: entries } = (raw ?? {}) as { version?: unknown; upstreams?: unknown };
  if (version !== FILE_VERSION || typeof entries !== 'object' || entries === null || Array.isArray(entries)) {
    return { upstreams, problems: [`${path} is not a version ${FILE_VERSION} kept catalog; nothing kept from the last run`] };
  }
  const problems: string[] = [];
  // Own keys only: a server id such as "constructor" is a key like any other.
  for (const [id, entry] of Object.entries(entries)) {
    const parsed = KeptUpstreamSchema.safeParse(entry);
    if (parsed.success) upstreams.set(id, parsed.data as KeptUpstream);
    else problems.push(`${path}: the lists kept for "${id}" do not parse (${parsed.error.issues[0]?.message ?? 'invalid'}); dropped`);
  }
  return { upstreams, problems };
}

/** The file's text for these entries. */
export function renderKeptCatalog(entries: Iterable<[string, KeptUpstream]>): string {
  const upstreams: Record<string, KeptUpstream> = Object.create(null);
  for (const [id, entry] of entries) upstreams[id] = entry;
  return `${JSON.stringify({ version: FILE_VERSION, upstreams })}\n`;
}

/** The kept catalog's file: each save writes what `entries` holds at that moment (atomic, one write at a time). */
export function keptCatalogFile(path: string, entries: () => Iterable<[string, KeptUpstream]>): AtomicFile {
  return new AtomicFile(path, () => renderKeptCatalog(entries()), { mode: 0o600 });
}
