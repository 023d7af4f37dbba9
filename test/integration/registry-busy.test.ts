/**
 * A registry that is busy (audit s19): HTTP 429 (too many requests) and 408 are not refusals but a
 * registry that cannot answer now, so what was kept from earlier answers, or else the servers that come
 * with Spillway, stand in; the notice says it is busy and when to try again, from its Retry-After.
 * The registry is the shared fixture behind a local proxy that starts answering 429 or 408.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RegistryCatalog } from '../../electron/core/registry/registry-catalog.js';
import { retryWords } from '../../electron/core/registry/registry-client.js';
import type { Started } from '../support/processes.js';
import { startRegistryFixture } from '../support/registry-hub.js';

let registry: Started & { url: string };
let proxy: Server;
let base: string;
let dir: string;
/** What the proxy answers instead of passing the request on. */
let busy: { status: number; retryAfter?: string } | undefined;

beforeAll(async () => {
  registry = await startRegistryFixture();
  proxy = createServer((req, res) => {
    if (busy) {
      res.writeHead(busy.status, { 'content-type': 'application/problem+json', ...(busy.retryAfter ? { 'retry-after': busy.retryAfter } : {}) });
      res.end(JSON.stringify({ title: 'Too Many Requests', status: busy.status, detail: 'rate limit exceeded' }));
      return;
    }
    void fetch(registry.url + req.url).then(async (up) => {
      res.writeHead(up.status, { 'content-type': up.headers.get('content-type') ?? 'application/json' });
      res.end(Buffer.from(await up.arrayBuffer()));
    });
  });
  await new Promise<void>((ok) => proxy.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  dir = await mkdtemp(join(tmpdir(), 'spillway-registry-busy-'));
}, 60_000);
afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise((ok) => proxy?.close(ok));
  await registry?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('a registry answering 429 shows the kept answers, and the built-in list where none was kept, saying it is busy', async () => {
  const catalog = new RegistryCatalog({ baseUrl: () => base, cacheDir: join(dir, 'cache-429') });
  const online = await catalog.search('airtable');
  expect(online.servers.map((s) => s.name)).toContain('io.github.domdomegg/airtable-mcp-server');
  await catalog.get('io.github.domdomegg/airtable-mcp-server');
  busy = { status: 429, retryAfter: '60' };

  const kept = await catalog.search('airtable');
  expect(kept.servers.map((s) => s.name)).toContain('io.github.domdomegg/airtable-mcp-server');
  expect(kept.cached?.notice).toMatch(
    /^Cached, from .*: The registry at http:\/\/127\.0\.0\.1:\d+ is busy \(too many requests, HTTP 429\)\. Try again in a minute\.$/,
  );
  const detail = await catalog.get('io.github.domdomegg/airtable-mcp-server');
  expect(detail.cached?.notice).toContain('is busy (too many requests, HTTP 429)');
  const builtIn = await catalog.search('time');
  expect(builtIn.cached).toMatchObject({ builtIn: true, notice: expect.stringContaining('is busy (too many requests, HTTP 429)') });
});

it('a registry answering 408 is busy too, and its Retry-After is honoured in the words', async () => {
  const catalog = new RegistryCatalog({ baseUrl: () => base, cacheDir: join(dir, 'cache-408') });
  busy = undefined;
  await catalog.search('airtable');
  busy = { status: 408, retryAfter: '20' };
  const kept = await catalog.search('airtable');
  expect(kept.cached?.notice).toMatch(/is busy \(it gave up waiting for the request, HTTP 408\)\. Try again in 20 seconds\.$/);
});

it('words a Retry-After in seconds or as a date', () => {
  const now = Date.parse('2026-11-26T12:00:00Z');
  expect(retryWords(null, now)).toBe('Try again in a minute.');
  expect(retryWords('5', now)).toBe('Try again in 5 seconds.');
  expect(retryWords('600', now)).toBe('Try again in 10 minutes.');
  expect(retryWords('Thu, 26 Nov 2026 12:03:00 GMT', now)).toBe('Try again in 3 minutes.');
  expect(retryWords('soon', now)).toBe('Try again in a minute.');
});
