/**
 * The server catalog: registry pages and entries, validated (malformed items skipped and counted), kept
 * in the data folder, and served from there with a "cached, from <time>" notice when the registry
 * cannot be reached.
 */
import type { RegistryServer } from '../../../shared/api-registry.js';
import { cursorPlace, cutAnswer, MOST_PER_PAGE, onePerName, placeCursor } from './catalog-pages.js';
import { findByWords, matchesWords, registryWord, searchWords } from './catalog-search.js';
import { CURATED_AT, curatedEntry, searchCurated } from './curated-servers.js';
import { keptWhen, RegistryCache } from './registry-cache.js';
import { RegistryClient, RegistryError, type ListQuery } from './registry-client.js';
import { officialMeta, parseServerList, ServerResponseSchema, type ServerList, type ServerResponse } from './server-json.js';
import { compareText } from '../../../shared/plain-text.js';

/** The official registry's page size when none is asked for. */
const REGISTRY_PAGE = 30;
/** Registry pages one search (or one More) reads at most before it answers with what it found (each way of reading). */
const PAGES_PER_SEARCH = 5;
/** Marks a cursor into the unsearched list (registry names never start with `~`). */
const SCAN = '~scan~';

export interface CachedNotice {
  at: string;
  notice: string;
  /** Nothing was kept either: only the servers that come with Spillway were searched. */
  builtIn?: boolean;
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
  /** Why it is deprecated or deleted (the registry's statusMessage). */
  statusMessage?: string;
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
  readonly #now: () => number;

  constructor(private readonly options: RegistryCatalogOptions) {
    this.#now = options.now ?? Date.now;
    this.#cache = new RegistryCache(options.cacheDir, this.#now);
  }

  #client(): RegistryClient {
    return new RegistryClient({ baseUrl: this.options.baseUrl(), timeoutMs: this.options.timeoutMs, fetch: this.options.fetch });
  }

  /**
   * One page of the latest versions: all of them without a query, else those with every word of `query`
   * in their name, title or description (catalog-search.ts). The registry searches names only, so it is
   * asked for one word; when no name holds it, its whole list is read page by page for the words.
   */
  async search(query?: string, cursor?: string): Promise<CatalogPage> {
    const words = searchWords(query);
    try {
      if (words.length === 0) {
        const page = await this.#listPage({ cursor, limit: this.options.pageSize });
        return { servers: page.servers.map(serverSummary), skipped: page.skipped, ...optional(page) };
      }
      return await this.#searchWords(words, cursor);
    } catch (err) {
      if (cursor || !unreachable(err)) throw err;
      const curated = searchCurated(query);
      // Words never searched online: the list pages kept from earlier visits may hold them.
      const kept = words.length > 0 ? await this.#searchKept(words) : undefined;
      if (kept) {
        const names = new Set(kept.found.map((r) => r.server.name));
        const servers = [...kept.found, ...curated.filter((r) => !names.has(r.server.name))].map(serverSummary);
        const notice = `Cached, from ${keptWhen(kept.at, this.#now())}: ${err.message} Showing the matches among the servers kept from earlier visits and those that come with Spillway.`;
        return { servers, skipped: 0, cached: { at: kept.at, notice } };
      }
      // A first run without the network: the servers that ship with the app, said so.
      return { servers: curated.map(serverSummary), skipped: 0, cached: curatedNotice(err) };
    }
  }

  /**
   * Up to a few registry pages for the words: the registry's name search for the most telling one, then,
   * when no name held it, the unsearched list (a cursor marked SCAN goes on with that). Stops at a page's
   * worth of matches, so that More goes on from there.
   */
  async #searchWords(words: string[], cursor: string | undefined): Promise<CatalogPage> {
    let scanning = cursor?.startsWith(SCAN) === true;
    let next = scanning ? cursor!.slice(SCAN.length) || undefined : cursor;
    const wanted = this.options.pageSize ?? REGISTRY_PAGE;
    let found: ServerResponse[] = [];
    let skipped = 0;
    let cached: CachedNotice | undefined;
    for (let left = PAGES_PER_SEARCH; left > 0; left--) {
      const page = await this.#listPage(
        scanning
          ? { cursor: next, limit: this.options.pageSize ?? MOST_PER_PAGE }
          : { search: registryWord(words), cursor: next, limit: this.options.pageSize },
      );
      skipped += page.skipped;
      cached ??= page.cached;
      found = onePerName([...found, ...page.servers.filter((r) => matchesWords(r.server, words))]);
      next = page.nextCursor;
      if (!next && !scanning && !cursor && found.length === 0) {
        // No name holds the word ("database", "browser"): the descriptions may. The list holds the
        // malformed items the name search met again, so they are counted once; it gets pages of its own.
        scanning = true;
        skipped = 0;
        left = PAGES_PER_SEARCH + 1;
        continue;
      }
      if (!next || found.length >= wanted) break;
    }
    return {
      servers: findByWords(found, words).map(serverSummary),
      skipped,
      ...(next ? { nextCursor: scanning ? `${SCAN}${next}` : next } : {}),
      ...(cached ? { cached } : {}),
    };
  }

  /**
   * Offline: the words looked for in every list page kept from this registry, each server once (as its
   * newest kept page has it), best first, with when the oldest page a match came from was kept.
   * Undefined when none matches.
   */
  async #searchKept(words: string[]): Promise<{ found: ServerResponse[]; at: string } | undefined> {
    const listPath = this.#client().listUrl({}).split('?')[0];
    const pages = await this.#cache.answers((url) => url.startsWith(`${listPath}?`));
    const newest = new Map<string, { response: ServerResponse; at: string }>();
    for (const page of pages) {
      let list;
      try {
        list = parseServerList(page.body);
      } catch {
        continue; // kept from a registry that answered in another shape
      }
      for (const response of list.servers) {
        const had = newest.get(response.server.name);
        if (!had || had.at < page.at) newest.set(response.server.name, { response, at: page.at });
      }
    }
    const byName = [...newest.values()].sort((a, b) => (a.response.server.name < b.response.server.name ? -1 : 1));
    const found = findByWords(
      byName.map((k) => k.response),
      words,
    );
    if (found.length === 0) return undefined;
    const at = byName
      .filter((k) => found.includes(k.response))
      .map((k) => k.at)
      .reduce((oldest, t) => (t < oldest ? t : oldest));
    return { found, at };
  }

  /**
   * One list page from the registry (or kept), its malformed items skipped and counted, each server once
   * (catalog-pages.ts). An answer longer than the page asked for (at most 100) is cut, and the page's
   * cursor goes on from where it was cut; `query.cursor` is such a cursor.
   */
  async #listPage(query: ListQuery): Promise<ServerList & { cached?: CachedNotice }> {
    const client = this.#client();
    const place = cursorPlace(query.cursor);
    const { body, cached } = await this.#fetch(client, client.listUrl({ ...query, cursor: place.cursor }), 'list of servers');
    const most = Math.min(query.limit ?? MOST_PER_PAGE, MOST_PER_PAGE);
    const cut = cutAnswer(body, place.from, most);
    try {
      const list = parseServerList(cut.body);
      const nextCursor = cut.rest ? placeCursor({ ...place, from: place.from + most }) : list.nextCursor;
      return { servers: onePerName(list.servers), skipped: list.skipped, ...(nextCursor ? { nextCursor } : {}), ...(cached ? { cached } : {}) };
    } catch {
      throw new RegistryError(
        'unreachable',
        `The registry's list of servers was not in the shape of the MCP Registry API. Check the registry address in Settings.`,
      );
    }
  }

  /** One version of one server (the latest when none is given). */
  async get(name: string, version?: string): Promise<CatalogEntry> {
    const client = this.#client();
    const what = version ? `server "${name}" version ${version}` : `server "${name}"`;
    let fetched;
    try {
      fetched = await this.#fetch(client, client.versionUrl(name, version ?? 'latest'), what);
    } catch (err) {
      if (!unreachable(err)) throw err;
      // The window opens an entry by `latest`, then its form and Add ask for the version it shows: the
      // answer kept for `latest` is that version's when it says so (the cache is keyed by address).
      const latest = version && version !== 'latest' ? await this.#kept(client.versionUrl(name, 'latest'), err) : undefined;
      const kept = latest && ServerResponseSchema.safeParse(latest.body).data?.server.version === version ? latest : undefined;
      const curated = kept ? undefined : curatedEntry(name);
      if (curated && (!version || version === curated.server.version)) return { response: curated, cached: curatedNotice(err) };
      if (!kept) throw err;
      fetched = kept;
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
        ...(statusNote(meta?.statusMessage) ? { statusMessage: statusNote(meta?.statusMessage) } : {}),
        ...(meta?.publishedAt ? { publishedAt: meta.publishedAt } : {}),
      };
    });
    versions.sort((a, b) => compareText(b.publishedAt ?? '', a.publishedAt ?? ''));
    return { versions, ...(fetched.cached ? { cached: fetched.cached } : {}) };
  }

  /** The answer from the registry (then kept), or, when the registry cannot be reached, the kept one. */
  async #fetch(client: RegistryClient, url: string, what: string): Promise<{ body: unknown; cached?: CachedNotice }> {
    try {
      const body = await client.getJson(url, what);
      await this.#cache.put(url, body);
      return { body };
    } catch (err) {
      if (!unreachable(err)) throw err;
      const kept = await this.#kept(url, err);
      if (!kept) throw err;
      return kept;
    }
  }

  /** The answer kept for a URL, with the "cached, from <time>" notice that says why the registry was not used. */
  async #kept(url: string, err: RegistryError): Promise<{ body: unknown; cached: CachedNotice } | undefined> {
    const kept = await this.#cache.get(url);
    if (!kept) return undefined;
    return { body: kept.body, cached: { at: kept.at, notice: `Cached, from ${keptWhen(kept.at, this.#now())}: ${err.message}` } };
  }
}

const optional = (page: { nextCursor?: string; cached?: CachedNotice }) => ({
  ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
  ...(page.cached ? { cached: page.cached } : {}),
});

const unreachable = (err: unknown): err is RegistryError => err instanceof RegistryError && err.kind === 'unreachable';

/** The notice on curated answers: when the list was made, and why the registry was not asked. */
function curatedNotice(err: unknown): CachedNotice {
  return {
    at: CURATED_AT,
    builtIn: true,
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
  const statusMessage = statusNote(officialMeta(response)?.statusMessage);
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
    ...(status && status !== 'active' && statusMessage ? { statusMessage } : {}),
  };
}

/** The registry's statusMessage as shown: on one line, at most 500 characters; undefined when empty. */
function statusNote(message: string | undefined): string | undefined {
  const line = message?.replace(/\s+/g, ' ').trim();
  if (!line) return undefined;
  return line.length > 500 ? `${line.slice(0, 499)}…` : line;
}
