/**
 * Searching Browse by words (audit s12): the registry's `search` matches a substring of the name only, so
 * the catalog asks it for one lower-cased word and keeps what has every word in its name, title or
 * description; when no name holds the word, it reads the list itself. Run against the shared registry
 * fixture as a real process from its own folder (as the real registry does: name-only search). Offline,
 * kept answers are found whatever the case of the query, dated in plain words, and the servers that come
 * with Spillway are searched the same way, marked as such.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RegistryCatalog, type CatalogPage } from '../../electron/core/registry/registry-catalog.js';
import { keptWhen } from '../../electron/core/registry/registry-cache.js';
import { ROOT } from '../support/hub-harness.js';
import { spawnUntil, type Started } from '../support/processes.js';

const FIXTURE = join(ROOT, '..', 'shared', 'registry-fixture', 'server.mjs');

async function startRegistry(...flags: string[]): Promise<Started & { url: string }> {
  const started = await spawnUntil(process.execPath, [FIXTURE, '--port', '0', ...flags], /REGISTRY-FIXTURE (http:\/\/\S+)/);
  return { ...started, url: started.match[1] };
}

/** The list requests the fixture logged (one stderr line each), as path and query. */
const listRequests = (registry: Started) => [...registry.output().matchAll(/GET (\/v0\.1\/servers\?\S*) ->/g)].map((m) => m[1]);

const names = (page: CatalogPage) => page.servers.map((s) => s.name);

let registry: Started & { url: string };
let dir: string;
let catalog: RegistryCatalog;

beforeAll(async () => {
  registry = await startRegistry();
  dir = await mkdtemp(join(tmpdir(), 'spillway-registry-search-'));
  catalog = new RegistryCatalog({ baseUrl: () => registry.url, cacheDir: join(dir, 'cache') });
});
afterAll(async () => {
  await registry?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('searching the registry by words', () => {
  it.each([
    ['Desktop Commander', 'io.github.wonderwhy-er/desktop-commander'],
    ['Redis MCP Server', 'io.github.redis/mcp-redis'],
    ['Firecrawl MCP Server', 'io.github.firecrawl/firecrawl-mcp-server'],
    ['Scrapling MCP Server', 'io.github.D4Vinci/Scrapling'],
    ['scrapling', 'io.github.D4Vinci/Scrapling'],
    ['context7', 'io.github.upstash/context7'],
  ])('the title shown in the list, "%s", finds its server first', async (query, name) => {
    const page = await catalog.search(query);
    expect(names(page)[0]).toBe(name);
    expect(page.cached).toBeUndefined();
  });

  it('asks the registry for one lower-cased word, the most telling one', async () => {
    await catalog.search('Redis MCP Server');
    expect(listRequests(registry).at(-1)).toBe('/v0.1/servers?search=redis&version=latest');
  });

  it('words only in descriptions are found too: the list is read when no name holds them', async () => {
    expect(names(await catalog.search('database'))).toEqual(['com.neon/mcp', 'io.github.domdomegg/airtable-mcp-server']);
    expect(names(await catalog.search('browser'))).toEqual(['io.github.D4Vinci/Scrapling']);
    // Every word must appear somewhere, in any order.
    expect(names(await catalog.search('scraping web'))).toEqual(['io.github.D4Vinci/Scrapling', 'io.github.firecrawl/firecrawl-mcp-server']);
    expect(names(await catalog.search('redis postgres'))).toEqual([]);
  });

  it('pages through the matches with More, each once', async () => {
    const paged = new RegistryCatalog({ baseUrl: () => registry.url, cacheDir: join(dir, 'paged'), pageSize: 2 });
    // "mcp" is in many names: the registry's name search, page by page.
    const seen: string[] = [];
    let page = await paged.search('MCP server');
    seen.push(...names(page));
    for (let i = 0; page.nextCursor && i < 20; i++) {
      page = await paged.search('MCP server', page.nextCursor);
      seen.push(...names(page));
    }
    expect(page.nextCursor).toBeUndefined();
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expect.arrayContaining(['io.github.firecrawl/firecrawl-mcp-server', 'io.github.mongodb-js/mongodb-mcp-server']));

    // Read from the list (no name holds "agent"): its cursor goes on reading the list.
    const first = await paged.search('agent');
    expect(first.nextCursor).toMatch(/^~scan~/);
    const all = [...names(first)];
    let next = first.nextCursor;
    for (let i = 0; next && i < 20; i++) {
      const more = await paged.search('agent', next);
      all.push(...names(more));
      next = more.nextCursor;
    }
    // "agent" in a description or title ("agentic" holds it too), each server once.
    expect(all.sort()).toEqual([
      'io.github.0spoon/seamless',
      'io.github.0xChron/polymarket-mcp',
      'io.github.oraios/serena',
      'io.github.redis/mcp-redis',
      'kr.ai.vdb/vdb',
    ]);
  });

  it('still reads the list when the name search took every page a search may read', async () => {
    const paged = new RegistryCatalog({ baseUrl: () => registry.url, cacheDir: join(dir, 'long'), pageSize: 1 });
    const before = listRequests(registry).length;
    // Four names hold "mcp-server" (five requests of one item); none mentions a browser.
    expect(names(await paged.search('mcp-server browser'))).toEqual([]);
    const made = listRequests(registry).slice(before);
    expect(made.filter((r) => r.includes('search=mcp-server'))).toHaveLength(5);
    expect(made.filter((r) => !r.includes('search='))).not.toHaveLength(0);
  });
});

describe('searching offline', () => {
  it('a kept answer is found whatever the case, dated in plain words; the built-in servers are searched by words too', async () => {
    const flaky = await startRegistry('--fail-after', '1');
    const cacheDir = await mkdtemp(join(tmpdir(), 'spillway-registry-offline-'));
    try {
      const offline = new RegistryCatalog({ baseUrl: () => flaky.url, cacheDir });
      const live = await offline.search('airtable');
      expect(names(live)).toEqual(['io.github.domdomegg/airtable-mcp-server']);

      const kept = await offline.search('Airtable');
      expect(kept.servers).toEqual(live.servers);
      expect(kept.cached!.notice).toMatch(/^Cached, from today at \d\d:\d\d: The registry at http:\/\/127\.0\.0\.1:\d+ is having trouble/);
      expect(kept.cached!.notice).not.toMatch(/\d{4}-\d\d-\d\dT/);
      expect(kept.cached!.builtIn).toBeUndefined();

      // Never kept: only the servers that come with Spillway, every word anywhere, said so.
      const builtIn = await offline.search('browser Playwright');
      expect(names(builtIn)).toEqual(['io.github.microsoft/playwright-mcp']);
      expect(builtIn.cached!.builtIn).toBe(true);
      expect(names(await offline.search('Memory MCP server'))).toEqual(['io.github.modelcontextprotocol/server-memory']);
    } finally {
      await flaky.stop();
      await rm(cacheDir, { recursive: true, force: true });
    }
  });

  // Local times (the user's clock), whatever the time zone the test runs in.
  it.each([
    ['today at 07:21', new Date(2026, 10, 25, 7, 21), new Date(2026, 10, 25, 18, 0)],
    ['yesterday at 23:05', new Date(2026, 10, 24, 23, 5), new Date(2026, 10, 25, 0, 30)],
    ['yesterday at 09:00', new Date(2026, 0, 31, 9, 0), new Date(2026, 1, 1, 9, 0)],
    ['20 Nov 2026 at 07:21', new Date(2026, 10, 20, 7, 21), new Date(2026, 10, 25, 7, 21)],
  ])('a kept time reads "%s"', (words, at, now) => {
    expect(keptWhen(at.toISOString(), now.getTime())).toBe(words);
  });
});
