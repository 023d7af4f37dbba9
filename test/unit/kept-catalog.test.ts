/**
 * The kept catalog (issue 13, item 3): the last run's lists per upstream, which of them stand in while
 * their upstream starts, the file they are kept in (written only when lists change, read back exactly as
 * clients were served them), the catalog entries they make, and the pool's bounded wait for upstreams.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ServerConfigSchema, type ServerConfig } from '../../shared/config.js';
import { Catalog, type CatalogSource } from '../../electron/core/catalog/catalog.js';
import { KeptCatalog, serverConfigKey, type UpstreamLists } from '../../electron/core/catalog/kept-catalog.js';
import { keptCatalogPath, parseKeptCatalog, renderKeptCatalog } from '../../electron/core/files/kept-catalog-file.js';
import { UpstreamPool, type UpstreamStatusChange } from '../../electron/core/upstream/upstream-pool.js';

const stdio = (extra: Record<string, unknown> = {}): ServerConfig =>
  ServerConfigSchema.parse({ type: 'stdio', command: 'node', args: ['server.js'], env: { A: '1', B: '2' }, ...extra });
const http = (extra: Record<string, unknown> = {}): ServerConfig =>
  ServerConfigSchema.parse({ type: 'http', url: 'https://example.com/mcp', headers: { 'X-Team': 'a' }, ...extra });

const tool = (name: string, description = `The ${name} tool.`): Tool => ({ name, description, inputSchema: { type: 'object', properties: {} } });
const lists = (...tools: Tool[]): UpstreamLists => ({ tools, resources: [], resourceTemplates: [], prompts: [] });

describe('serverConfigKey: which config the kept lists belong to', () => {
  it('ignores what changes nothing an upstream lists (prefix, label, timeout, enabled, env order)', () => {
    const key = serverConfigKey(stdio());
    expect(serverConfigKey(stdio({ prefix: false, label: 'Mine', timeoutMs: 5000, enabled: false }))).toBe(key);
    expect(serverConfigKey(stdio({ env: { B: '2', A: '1' } }))).toBe(key);
    expect(serverConfigKey(http({ label: 'x' }))).toBe(serverConfigKey(http()));
  });

  it.each([
    ['command', stdio({ command: 'python' })],
    ['args', stdio({ args: ['other.js'] })],
    ['an env value', stdio({ env: { A: '1', B: '3' } })],
    ['cwd', stdio({ cwd: '/tmp' })],
    ['the transport', http()],
  ])('changes with %s', (_what, config) => {
    expect(serverConfigKey(config)).not.toBe(serverConfigKey(stdio()));
  });

  it('changes with the URL or a header, and holds no value in plain text', () => {
    expect(serverConfigKey(http({ url: 'https://example.com/other' }))).not.toBe(serverConfigKey(http()));
    expect(serverConfigKey(http({ headers: { 'X-Team': 'b' } }))).not.toBe(serverConfigKey(http()));
    expect(serverConfigKey(http({ headers: { Authorization: 'Bearer s3cret-value' } }))).not.toContain('s3cret');
  });
});

describe('KeptCatalog', () => {
  const now = new Date('2025-01-02T03:04:05Z');

  it('stands in, at start, for the enabled servers whose lists were kept under their current config', () => {
    const kept = new KeptCatalog();
    kept.record('same', stdio(), lists(tool('a')), now);
    kept.record('edited', stdio(), lists(tool('b')), now);
    kept.record('off', stdio(), lists(tool('c')), now);
    const ids = kept.standIn({
      same: stdio({ label: 'renamed label' }),
      edited: stdio({ args: ['v2.js'] }),
      off: stdio({ enabled: false }),
      fresh: stdio(),
    });
    expect(ids).toEqual(['same']);
    expect(kept.standingIn('same')?.tools.map((t) => t.name)).toEqual(['a']);
    expect(kept.standingIn('edited')).toBeUndefined();
    expect(kept.standingIn('fresh')).toBeUndefined();
    // The lists stay kept whether or not they serve.
    expect(kept.get('edited')?.tools.map((t) => t.name)).toEqual(['b']);
  });

  it('stops standing in once the upstream answered in this run', () => {
    const kept = new KeptCatalog();
    kept.record('s', stdio(), lists(tool('a')), now);
    kept.standIn({ s: stdio() });
    expect(kept.settle('s')).toBe(true);
    expect(kept.standingIn('s')).toBeUndefined();
    expect(kept.settle('s')).toBe(false);
  });

  it('says a change only when the lists or the config differ from what is kept', () => {
    const kept = new KeptCatalog();
    expect(kept.record('s', stdio(), lists(tool('a')), now)).toBe(true);
    const later = new Date(now.getTime() + 60_000);
    expect(kept.record('s', stdio({ label: 'x' }), lists(tool('a')), later)).toBe(false);
    expect(kept.get('s')?.listedAt).toBe(now.toISOString());
    expect(kept.record('s', stdio(), lists(tool('a', 'A new description.')), later)).toBe(true);
    expect(kept.get('s')?.listedAt).toBe(later.toISOString());
    expect(kept.record('s', stdio({ args: ['v2.js'] }), lists(tool('a', 'A new description.')), later)).toBe(true);
  });

  it('forgets servers no longer configured, with ids that are Object.prototype names too', () => {
    const kept = new KeptCatalog();
    for (const id of ['constructor', 'toString', 'kept']) kept.record(id, stdio(), lists(tool('a')), now);
    kept.standIn({ constructor: stdio(), toString: stdio() });
    expect(kept.retain(['kept', 'constructor'])).toBe(true);
    expect([...kept.entries()].map(([id]) => id)).toEqual(['constructor', 'kept']);
    expect(kept.standingIn('toString')).toBeUndefined();
    expect(kept.standingIn('constructor')).toBeDefined();
    expect(kept.retain(['kept', 'constructor'])).toBe(false);
  });
});

describe('the kept catalog file', () => {
  let dir: string;
  const logged: string[] = [];
  const log = (message: string, error?: unknown) => logged.push(error ? `${message}: ${(error as Error).message}` : message);

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'spillway-kept-'));
    logged.length = 0;
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Tools as an SDK client gets them from a real McpServer: titles, annotations, output schemas, _meta. */
  async function listedTools(): Promise<Tool[]> {
    const server = new McpServer({ name: 'rich', version: '1.0.0' });
    server.registerTool(
      'add',
      {
        title: 'Add',
        description: 'Adds two numbers — ünïcödé ✓',
        inputSchema: { a: z.number(), b: z.number().describe('the second') },
        outputSchema: { sum: z.number() },
        annotations: { readOnlyHint: true, idempotentHint: true },
        _meta: { 'example.com/origin': { nested: [1, 2] } },
      },
      async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }),
    );
    server.registerTool('noop', { description: 'Nothing.' }, async () => ({ content: [] }));
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 't', version: '1' });
    await Promise.all([server.connect(b), client.connect(a)]);
    const { tools } = await client.listTools();
    await client.close();
    return tools;
  }

  it('is read back exactly as the tools were listed (a client sees no difference, so no list_changed)', async () => {
    const tools = await listedTools();
    const path = keptCatalogPath(dir);
    const first = await KeptCatalog.open(path, log);
    first.record('rich', stdio(), { ...lists(...tools), resources: [{ uri: 'file:///a.txt', name: 'a.txt', mimeType: 'text/plain' }] });
    await first.flush();

    const again = await KeptCatalog.open(path, log);
    expect(logged).toEqual([]);
    expect(JSON.stringify(again.get('rich')?.tools)).toBe(JSON.stringify(tools));
    expect(again.get('rich')?.resources).toEqual([{ uri: 'file:///a.txt', name: 'a.txt', mimeType: 'text/plain' }]);
    // The same lists listed again are no change: nothing to write.
    expect(again.record('rich', stdio(), { ...lists(...tools), resources: again.get('rich')!.resources })).toBe(false);
  });

  it('is written atomically, owner-only, with no temp file left, and only when lists change', async () => {
    const path = keptCatalogPath(dir);
    const kept = await KeptCatalog.open(path, log);
    kept.record('s', stdio(), lists(tool('a')));
    await kept.flush();
    expect(await readdir(dir)).toEqual(['kept-catalog.json']);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const written = (await stat(path)).mtimeMs;
    const text = await readFile(path, 'utf8');

    kept.record('s', stdio(), lists(tool('a')));
    await kept.flush();
    expect((await stat(path)).mtimeMs).toBe(written);
    expect(await readFile(path, 'utf8')).toBe(text);

    kept.record('s', stdio(), lists(tool('a'), tool('b')));
    await kept.flush();
    expect(
      parseKeptCatalog(await readFile(path, 'utf8'))
        .upstreams.get('s')
        ?.tools.map((t) => t.name),
    ).toEqual(['a', 'b']);
  });

  it('a missing file is an empty catalog, quietly', async () => {
    const kept = await KeptCatalog.open(keptCatalogPath(dir), log);
    expect([...kept.entries()]).toEqual([]);
    expect(logged).toEqual([]);
  });

  it('a file that is not JSON is an empty catalog, said in the log', async () => {
    await writeFile(keptCatalogPath(dir), '{"version":1,"upstreams":{"s":');
    const kept = await KeptCatalog.open(keptCatalogPath(dir), log);
    expect([...kept.entries()]).toEqual([]);
    expect(logged).toEqual([expect.stringMatching(/kept-catalog\.json is not JSON .*nothing kept from the last run/)]);
  });

  it('drops an upstream whose lists do not parse and keeps the others', async () => {
    const good = { config: 'k', listedAt: '2025-01-01T00:00:00.000Z', tools: [tool('a')], resources: [], resourceTemplates: [], prompts: [] };
    const bad = { ...good, tools: [{ name: 'no input schema' }] };
    await writeFile(keptCatalogPath(dir), JSON.stringify({ version: 1, upstreams: { good, bad, __proto__: good } }));
    const kept = await KeptCatalog.open(keptCatalogPath(dir), log);
    expect([...kept.entries()].map(([id]) => id)).toEqual(['good']);
    expect(logged).toEqual([expect.stringContaining('the lists kept for "bad" do not parse')]);
  });

  it('keeps server ids such as "constructor" and "__proto__" as plain keys', () => {
    const entry = { config: 'k', listedAt: '2025-01-01T00:00:00.000Z', ...lists(tool('a')) };
    const text = renderKeptCatalog([
      ['constructor', entry],
      ['__proto__', entry],
    ]);
    expect([...parseKeptCatalog(text).upstreams.keys()]).toEqual(['constructor', '__proto__']);
  });

  it('another version is not read', () => {
    const read = parseKeptCatalog(JSON.stringify({ version: 2, upstreams: {} }));
    expect(read.upstreams.size).toBe(0);
    expect(read.problems).toEqual([expect.stringContaining('not a version 1 kept catalog')]);
  });
});

describe('catalog entries from kept lists', () => {
  const options = { maxLength: 48, ownTools: () => [tool('spillway__read_result')], mayRewriteResult: () => false };
  const source = (tools: Tool[], kept?: boolean): CatalogSource => ({ id: 's', prefix: true, ...lists(...tools), ...(kept ? { kept } : {}) });

  it('are marked as the last run’s, and the same lists listed live change nothing clients see', () => {
    const catalog = new Catalog();
    expect(catalog.rebuild([source([tool('a'), tool('b')], true)], options).tools).toBe(true);
    expect(catalog.tool('s__a')?.kept).toBe(true);

    const changed = catalog.rebuild([source([tool('a'), tool('b')])], options);
    expect(changed).toEqual({ tools: false, resources: false, prompts: false });
    expect(catalog.tool('s__a')?.kept).toBeUndefined();
  });

  it('lists that differ from the kept ones are a change', () => {
    const catalog = new Catalog();
    catalog.rebuild([source([tool('a')], true)], options);
    expect(catalog.rebuild([source([tool('a'), tool('b')])], options).tools).toBe(true);
  });
});

describe('UpstreamPool.whenSettled', () => {
  function deferred() {
    let resolve!: () => void;
    let reject!: (err: Error) => void;
    const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
    return { promise, resolve, reject };
  }

  /** A pool whose upstreams connect when the test opens their gate (or fail when it fails it). */
  function gatedPool() {
    /** reached: the upstream waits at its gate (its transport is being made); opened: the test let it through. */
    const gates = new Map<string, { reached: ReturnType<typeof deferred>; opened: ReturnType<typeof deferred> }>();
    const gate = (id: string) => {
      if (!gates.has(id)) gates.set(id, { reached: deferred(), opened: deferred() });
      return gates.get(id)!;
    };
    const statusWaiters: { server: string; status: string; resolve: () => void }[] = [];
    const pool = new UpstreamPool({
      hooks: {
        async createTransport(id) {
          gate(id).reached.resolve();
          await gate(id).opened.promise;
          const server = new McpServer({ name: id, version: '1' });
          server.registerTool('ping', { description: 'pong' }, async () => ({ content: [{ type: 'text', text: 'pong' }] }));
          const [a, b] = InMemoryTransport.createLinkedPair();
          await server.connect(b);
          return { transport: a };
        },
        onStderr: () => {},
        onListsChanged: () => {},
        onProgress: () => {},
        onLog: () => {},
        onResourceUpdated: () => {},
        routeRequest: async () => ({}),
      },
      onStatus: (change: UpstreamStatusChange) => {
        for (const w of [...statusWaiters]) {
          if (w.server !== change.server || w.status !== change.status) continue;
          statusWaiters.splice(statusWaiters.indexOf(w), 1);
          w.resolve();
        }
      },
      upstream: { clientInfo: { name: 'spillway', version: '0' }, backoffBaseMs: 60_000 },
    });
    const status = (server: string, want: string) =>
      pool.get(server)?.status === want ? Promise.resolve() : new Promise<void>((resolve) => statusWaiters.push({ server, status: want, resolve }));
    return { pool, gate, status };
  }

  const cfg = stdio();

  it('resolves once every upstream waited for is ready or failed', async () => {
    const { pool, gate, status } = gatedPool();
    pool.start({ a: cfg, b: cfg });
    await Promise.all([gate('a').reached.promise, gate('b').reached.promise]);
    let settled = false;
    const waiting = pool.whenSettled(['a', 'b'], 60_000).then(() => (settled = true));

    gate('a').opened.resolve();
    await status('a', 'ready');
    expect(settled).toBe(false);
    gate('b').opened.reject(new Error('spawn failed'));
    await waiting;
    expect(pool.get('a')?.status).toBe('ready');
    expect(pool.get('b')?.status).toBe('error');
    await pool.stop();
  });

  it('resolves at once for upstreams not connecting, and when one is removed', async () => {
    const { pool, gate } = gatedPool();
    await pool.whenSettled(['unknown'], 60_000);
    pool.start({ a: cfg, off: stdio({ enabled: false }) });
    await pool.whenSettled(['off'], 60_000);
    await gate('a').reached.promise;
    const waiting = pool.whenSettled(['a'], 60_000);
    await pool.remove('a');
    await waiting;
    await pool.stop();
  });

  it('gives up after its bound', async () => {
    const { pool, gate } = gatedPool();
    pool.start({ a: cfg });
    await gate('a').reached.promise;
    await pool.whenSettled(['a'], 20);
    expect(pool.get('a')?.status).toBe('connecting');
    await pool.stop();
  });
});
