/**
 * A catalog remote whose key sits in the address's path (`http://host/{api_key}/mcp`, the variable marked
 * secret), added through the control API of a real in-process hub, a tiny local server playing both the
 * MCP Registry and the remote MCP server (which answers only at the path holding the right key).
 * config.json keeps a `${SPILLWAY_SECRET_URL_1}` placeholder and the key in the secret store; the server
 * is reached at the real address, and lists, the event log and an edit sent back never show the key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { ServerConfig } from '../../shared/config.js';
import type { AppHub } from '../../electron/core/app/app-hub.js';
import { callApi, hubToolNames, startRegistryHub, waitForStatus } from '../support/registry-hub.js';

const NAME = 'io.github.spillway-url-secret/key-in-path';
const KEY = 'SUPERSECRETKEY123';

let work: string;
let web: Server;
let base: string;
let app: AppHub;
/** The MCP requests the server got: their path and headers. */
const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
/** While true, the server answers every MCP request with 503 (to see what the hub logs of a failed connect). */
let refusing = false;

const api = <T>(method: string, body: unknown = {}) => callApi<T>(app, method, body);
const configText = () => readFile(join(work, 'data', 'config.json'), 'utf8');
async function listed(id: string): Promise<ServerConfig> {
  const list = await api<{ id: string; config: ServerConfig }[]>('upstreams.list');
  return list.value!.find((u) => u.id === id)!.config;
}

function mcpServer(): McpServer {
  const server = new McpServer({ name: 'key-in-path', version: '1.0.0' });
  server.registerTool('hello', { description: 'Says hello.' }, async () => ({ content: [{ type: 'text', text: 'hello' }] }));
  return server;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'spillway-url-secret-'));
  web = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path.startsWith('/v0.1/servers/')) {
      if (decodeURIComponent(path.split('/')[3] ?? '') !== NAME) return void res.writeHead(404).end('{"detail":"Server not found"}');
      const remote = {
        type: 'streamable-http',
        url: `${base}/{api_key}/mcp`,
        variables: { api_key: { description: 'Your API key', isRequired: true, isSecret: true } },
      };
      const server = { name: NAME, description: 'A remote with its key in the path.', version: '1.0.0', remotes: [remote] };
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ server }));
    }
    seen.push({ path, headers: req.headers });
    if (path !== `/${KEY}/mcp`) return void res.writeHead(404).end('no such server');
    if (refusing) return void res.writeHead(503).end('down for maintenance');
    // Stateless: a fresh server and transport for each request.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await mcpServer().connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((ok) => web.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
  app = await startRegistryHub({ dir: work, registryUrl: base });
}, 60_000);

afterAll(async () => {
  await app?.hub.stop();
  web?.closeAllConnections();
  await new Promise((ok) => web?.close(ok));
  if (work) await rm(work, { recursive: true, force: true });
});

describe('a secret variable in a remote address’s path', () => {
  let id: string;

  it('is kept in the secret store: config.json holds a placeholder, and the server is reached with the key', async () => {
    const add = await api<{ id: string; secrets: string; summary: string }>('registry.add', {
      name: NAME,
      remote: 0,
      values: { 'var:api_key': KEY },
    });
    expect(add).toMatchObject({ ok: true, value: { secrets: 'secret-store' } });
    expect(add.value!.summary).not.toContain(KEY);
    id = add.value!.id;
    const text = await configText();
    expect(text).not.toContain(KEY);
    expect(JSON.parse(text).servers[id]).toMatchObject({
      type: 'http',
      url: `${base}/\${SPILLWAY_SECRET_URL_1}/mcp`,
      headers: { SPILLWAY_SECRET_URL_1: '<secret>' },
    });
    await waitForStatus(app, id, 'ready');
    expect(await hubToolNames(app, 'url-secret-test')).toContain(`${id}__hello`);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((r) => r.path === `/${KEY}/mcp`)).toBe(true);
    // The key's header is a part of the address, never sent as a header.
    expect(seen.some((r) => Object.keys(r.headers).some((h) => /spillway/i.test(h)))).toBe(false);
  });

  it('lists and the event log show the address without the key, also when the server fails', async () => {
    const shown = await listed(id);
    expect(shown).toMatchObject({ url: `${base}/\${SPILLWAY_SECRET_URL_1}/mcp`, headers: { SPILLWAY_SECRET_URL_1: '***' } });
    refusing = true;
    try {
      await api('upstreams.restart', { id });
      await waitForStatus(app, id, 'error');
    } finally {
      refusing = false;
    }
    const list = await api('upstreams.list');
    expect(JSON.stringify(list)).not.toContain(KEY);
    const events = await api('events.query', { limit: 10_000 });
    const text = JSON.stringify(events.value);
    expect(text).toContain('503');
    expect(text).not.toContain(KEY);
  });

  it('an edit sent back as listed keeps the key: the server is reached again, config.json still without it', async () => {
    const shown = await listed(id);
    const before = seen.length;
    const updated = await api('upstreams.update', { id, config: { ...shown, label: 'Key in path' } });
    expect(updated.ok).toBe(true);
    await waitForStatus(app, id, 'ready');
    expect(seen.length).toBeGreaterThan(before);
    expect(seen.slice(before).every((r) => r.path === `/${KEY}/mcp`)).toBe(true);
    const text = await configText();
    expect(text).not.toContain(KEY);
    expect(JSON.parse(text).servers[id]).toMatchObject({ label: 'Key in path', headers: { SPILLWAY_SECRET_URL_1: '<secret>' } });
  });

  it('removed and put back with Undo: the same', async () => {
    expect((await api('upstreams.remove', { id })).ok).toBe(true);
    expect((await api('upstreams.undoRemove', { id })).ok).toBe(true);
    await waitForStatus(app, id, 'ready');
    expect(await configText()).not.toContain(KEY);
    expect(seen.at(-1)!.path).toBe(`/${KEY}/mcp`);
  });

  it('after a restart of the hub, the key is read back from the store', async () => {
    await app.hub.stop();
    const before = seen.length;
    app = await startRegistryHub({ dir: work, registryUrl: base });
    await waitForStatus(app, id, 'ready');
    expect(seen.slice(before).some((r) => r.path === `/${KEY}/mcp`)).toBe(true);
  }, 60_000);
});
