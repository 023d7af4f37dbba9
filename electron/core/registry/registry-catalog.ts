/**
 * The server catalog: registry pages and entries, validated (malformed items skipped and counted), kept
 * in the data folder, and served from there with a "cached, from <time>" notice when the registry
 * cannot be reached.
 */
import type { RegistryServer } from '../../../shared/api-registry.js';
import { CURATED_AT, curatedEntry, searchCurated } from './curated-servers.js';
import { RegistryCache } from './registry-cache.js';
import { RegistryClient, RegistryError } from './registry-client.js';
import { officialMeta, parseServerList, ServerResponseSchema, type ServerResponse } from './server-json.js';

export interface CachedNotice {
  at: string;
  notice: string;
}

export interface CatalogPage {
  servers: RegistryServer[];
  nextCursor?: string;
  skipped: number;
  cached?: CachedNotice;
}

export interface CatalogEntry {
  response: ServerResponse;
  cached?: CachedNotice;
}

/** One published version of a server, as the version picker lists it. */
export interface CatalogVersion {
  version: string;
  /** The registry's latest version. */
  latest: boolean;
  status?: string;
  publishedAt?: string;
}

export interface RegistryCatalogOptions {
  /** The registry URL (the setting), read at each request so a change applies at once. */
  baseUrl: () => string;
  cacheDir: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
  now?: () => number;
  /** Items per page; by default the registry's own (30 for the official one). */
  pageSize?: number;
}

export class RegistryCatalog {
  readonly #cache: RegistryCache;

  constructor(private readonly options: RegistryCatalogOptions) {
    this.#cache = new RegistryCache(options.cacheDir, options.now);
  }

  #client(): RegistryClient {
    return new RegistryClient({ baseUrl: this.options.baseUrl(), timeoutMs: this.options.timeoutMs, fetch: this.options.fetch });
  }

  /** One page of the latest versions whose name contains `query`. */
  async search(query?: string, cursor?: string): Promise<CatalogPage> {
    const client = this.#client();
    const url = client.listUrl({ search: query?.trim() || undefined, cursor, limit: this.options.pageSize });
    let fetched;
    try {
      fetched = await this.#fetch(client, url, 'list of servers');
    } catch (err) {
      // A first run without the network: the servers that ship with the app, said so.
      if (cursor || !unreachable(err)) throw err;
      const servers = searchCurated(query);
      return { servers: servers.map(serverSummary), skipped: 0, cached: curatedNotice(err) };
    }
    const { body, cached } = fetched;
    let list;
    try {
      list = parseServerList(body);
    } catch {
      throw new RegistryError(
        'unreachable',
        `The registry's list of servers was not in the shape of the MCP Registry API. Check the registry address in Settings.`,
      );
    }
    return {
      servers: list.servers.map(serverSummary),
      skipped: list.skipped,
      ...(list.nextCursor ? { nextCursor: list.nextCursor } : {}),
      ...(cached ? { cached } : {}),
    };
  }

  /** One version of one server (the latest when none is given). */
  async get(name: string, version?: string): Promise<CatalogEntry> {
    const client = this.#client();
    const what = version ? `server "${name}" version ${version}` : `server "${name}"`;
    let fetched;
    try {
      fetched = await this.#fetch(client, client.versionUrl(name, version ?? 'latest'), what);
    } catch (err) {
      const curated = unreachable(err) ? curatedEntry(name) : undefined;
      if (!curated || (version && version !== curated.server.version)) throw err;
      return { response: curated, cached: curatedNotice(err) };
    }
    const { body, cached } = fetched;
    const parsed = ServerResponseSchema.safeParse(body);
    if (!parsed.success) {
      throw new RegistryError('refused', `The registry's entry for ${what} does not follow the server.json schema, so it cannot be added.`);
    }
    return { response: parsed.data, ...(cached ? { cached } : {}) };
  }

  /** Every published version of one server (deleted ones hidden by the registry), newest published first. */
  async versions(name: string): Promise<{ versions: CatalogVersion[]; cached?: CachedNotice }> {
    const client = this.#client();
    let fetched;
    try {
      fetched = await this.#fetch(client, client.versionsUrl(name), `list of versions of "${name}"`);
    } catch (err) {
      const curated = unreachable(err) ? curatedEntry(name) : undefined;
      if (!curated) throw err;
      return { versions: [{ version: curated.server.version, latest: true }], cached: curatedNotice(err) };
    }
    let list;
    try {
      list = parseServerList(fetched.body);
    } catch {
      throw new RegistryError('unreachable', `The registry's list of versions of "${name}" was not in the shape of the MCP Registry API.`);
    }
    const versions = list.servers.map((r) => {
      const meta = officialMeta(r);
      return {
        version: r.server.version,
        latest: meta?.isLatest === true,
        ...(meta?.status ? { status: meta.status } : {}),
        ...(meta?.publishedAt ? { publishedAt: meta.publishedAt } : {}),
      };
    });
    versions.sort((a, b) => (b.publishedAt ?? '').localeCompare(a.publishedAt ?? ''));
    return { versions, ...(fetched.cached ? { cached: fetched.cached } : {}) };
  }

  /** The answer from the registry (then kept), or, when the registry cannot be reached, the kept one. */
  async #fetch(client: RegistryClient, url: string, what: string): Promise<{ body: unknown; cached?: CachedNotice }> {
    try {
      const body = await client.getJson(url, what);
      await this.#cache.put(url, body);
      return { body };
    } catch (err) {
      if (!(err instanceof RegistryError) || err.kind !== 'unreachable') throw err;
      const kept = await this.#cache.get(url);
      if (!kept) throw err;
      return { body: kept.body, cached: { at: kept.at, notice: `Cached, from ${kept.at}: ${err.message}` } };
    }
  }
}

const unreachable = (err: unknown) => err instanceof RegistryError && err.kind === 'unreachable';

/** The notice on curated answers: when the list was made, and why the registry was not asked. */
function curatedNotice(err: unknown): CachedNotice {
  return {
    at: CURATED_AT,
    notice: `${(err as Error).message} Showing the servers that come with Spillway; the whole catalog is searchable once the registry can be reached.`,
  };
}

/** What the catalog lists of one entry. */
export function serverSummary(response: ServerResponse): RegistryServer {
  const s = response.server;
  // A light-theme icon (or one for any theme) first: the window's default look is light.
  const icon = s.icons?.find((i) => i.theme !== 'dark') ?? s.icons?.[0];
  const kinds = [...new Set([...(s.packages ?? []).map((p) => p.registryType), ...((s.remotes ?? []).length ? ['remote'] : [])])];
  const status = officialMeta(response)?.status;
  return {
    name: s.name,
    version: s.version,
    ...(s.title ? { title: s.title } : {}),
    description: s.description,
    ...(icon && /^https:\/\//i.test(icon.src)
      ? { icon: { src: icon.src, ...(icon.mimeType ? { mimeType: icon.mimeType } : {}), ...(icon.theme ? { theme: icon.theme } : {}) } }
      : {}),
    ...(s.websiteUrl ? { websiteUrl: s.websiteUrl } : {}),
    ...(s.repository ? { repository: s.repository.url } : {}),
    kinds,
    ...(status ? { status } : {}),
  };
}
