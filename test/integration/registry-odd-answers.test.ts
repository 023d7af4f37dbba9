/**
 * The catalog against registries that answer otherwise than the official one (audit s15): one that
 * ignores `version=latest` lists each server once per version, one that ignores `limit` sends its whole
 * list in one answer. The window gets each server once, and at most 100 a page, with More going on
 * where the page was cut. Also searching for "github", the search box's own example: the word every
 * name published under a GitHub account holds finds only the servers about GitHub.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RegistryCatalog, type CatalogPage } from '../../electron/core/registry/registry-catalog.js';
import { ROOT } from '../support/hub-harness.js';
import { spawnUntil, type Started } from '../support/processes.js';

const FIXTURE = join(ROOT, '..', 'shared', 'registry-fixture', 'server.mjs');

let registry: Started & { url: string };
let everyVersion: Server;
let everyVersionUrl: string;
let dir: string;

/** A local HTTP server answering every request with `answer(url)`; its address. */
async function serve(answer: (url: URL) => Promise<{ status: number; body: string }>): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    void answer(new URL(req.url ?? '/', 'http://localhost')).then(({ status, body }) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const names = (page: CatalogPage) => page.servers.map((s) => s.name);

/** Every page of a search, following its cursor; no page holds more than 100 servers. */
async function allPages(catalog: RegistryCatalog, query?: string): Promise<string[]> {
  let page = await catalog.search(query);
  const seen = names(page);
  for (let i = 0; page.nextCursor && i < 50; i++) {
    expect(page.servers.length).toBeLessThanOrEqual(100);
    page = await catalog.search(query, page.nextCursor);
    seen.push(...names(page));
  }
  expect(page.servers.length).toBeLessThanOrEqual(100);
  expect(page.nextCursor).toBeUndefined();
  return seen;
}

beforeAll(async () => {
  const started = await spawnUntil(process.execPath, [FIXTURE, '--port', '0'], /REGISTRY-FIXTURE (http:\/\/\S+)/);
  registry = { ...started, url: started.match[1] };
  // A mirror that drops `version=latest`: the fixture then lists every version of each server.
  const proxy = await serve(async (url) => {
    url.searchParams.delete('version');
    const res = await fetch(new URL(`${url.pathname}${url.search}`, registry.url));
    return { status: res.status, body: await res.text() };
  });
  everyVersion = proxy.server;
  dir = await mkdtemp(join(tmpdir(), 'spillway-registry-odd-'));
  everyVersionUrl = proxy.url;
});
afterAll(async () => {
  everyVersion?.close();
  await registry?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a registry that lists every version', () => {
  it('each server is listed once, as its latest version, on one page and across pages', async () => {
    const url = everyVersionUrl;
    const whole = new RegistryCatalog({ baseUrl: () => url, cacheDir: join(dir, 'whole') });
    const page = await whole.search();
    expect(names(page)).toHaveLength(new Set(names(page)).size);
    expect(names(page)).toHaveLength(20);
    expect(page.servers.find((s) => s.name === 'io.github.hashicorp/terraform-mcp-server')?.version).toBe('1.2.0');

    // A page size of 2: the versions of one server fall on several registry pages; a search reads a few.
    const paged = new RegistryCatalog({ baseUrl: () => url, cacheDir: join(dir, 'paged'), pageSize: 2 });
    const found = await paged.search('terraform');
    expect(names(found)).toEqual(['io.github.hashicorp/terraform-mcp-server']);
  });
});

describe('a registry that ignores limit', () => {
  const N = 250;
  let huge: Server;
  let url: string;
  beforeAll(async () => {
    const servers = Array.from({ length: N }, (_, i) => ({
      server: {
        name: `io.example/server-${String(i).padStart(4, '0')}`,
        description: `Example server number ${i}`,
        version: '1.0.0',
        packages: [{ registryType: 'npm', identifier: `example-${i}`, version: '1.0.0', transport: { type: 'stdio' } }],
      },
      _meta: { 'io.modelcontextprotocol.registry/official': { status: 'active', isLatest: true } },
    }));
    const body = JSON.stringify({ servers, metadata: { count: N } });
    ({ server: huge, url } = await serve(async () => ({ status: 200, body })));
  });
  afterAll(() => huge?.close());

  it('a page holds at most 100 servers, and More goes on where it was cut, each once', async () => {
    const catalog = new RegistryCatalog({ baseUrl: () => url, cacheDir: join(dir, 'huge') });
    const first = await catalog.search();
    expect(first.servers).toHaveLength(100);
    expect(first.nextCursor).toBeDefined();
    const all = await allPages(catalog);
    expect(all).toHaveLength(N);
    expect(new Set(all).size).toBe(N);
  });

  it('a search that reads the whole list does so a cut page at a time', async () => {
    const catalog = new RegistryCatalog({ baseUrl: () => url, cacheDir: join(dir, 'huge-words') });
    // No name holds "number" (the list is read for it): every server, once.
    const all = await allPages(catalog, 'number');
    expect(all).toHaveLength(N);
    expect(new Set(all).size).toBe(N);
  });
});

describe('searching for a word of the namespace', () => {
  it('"github" finds the servers about GitHub, not every server published under a GitHub account', async () => {
    const catalog = new RegistryCatalog({ baseUrl: () => registry.url, cacheDir: join(dir, 'github') });
    const page = await catalog.search('github');
    const unrelated = page.servers.filter((s) => !/github/i.test(`${s.name.split('/').pop()} ${s.title ?? ''} ${s.description}`));
    expect(unrelated.map((s) => s.name)).toEqual([]);
  });

  it('the owner still finds its servers: "hashicorp" finds Terraform', async () => {
    const catalog = new RegistryCatalog({ baseUrl: () => registry.url, cacheDir: join(dir, 'owner') });
    expect(names(await catalog.search('hashicorp'))).toEqual(['io.github.hashicorp/terraform-mcp-server']);
  });
});
