/**
 * The paths the bench measures, each ending at the same stdio server (test/fixtures/fixture-server.mjs):
 * the server itself (stdio, or its own Streamable HTTP endpoint), Spillway, and the peer relays from npm
 * (supergateway, mcp-hub, mcp-proxy as published, from node_modules), every one bound to 127.0.0.1.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Started } from '../support/processes.js';
import { LISTENING, LOOPBACK_ONLY, freePort, type ProcessGroup } from './bench-processes.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const NODE = process.execPath;
export const FIXTURE = join(ROOT, 'test/fixtures/fixture-server.mjs');
export const SPILLWAY = join(ROOT, 'electron/cli/spillway.js');
const BIN = (path: string) => join(ROOT, 'node_modules', path);

/** A connected client and the name the trivial tool has behind that path. */
export interface Relay {
  client: Client;
  tool: string;
}

const newClient = () => new Client({ name: 'bench', version: '1' });
const serverPids = new WeakMap<Client, number>();

export async function stdioClient(g: ProcessGroup, command: string, args: string[]): Promise<Client> {
  const client = newClient();
  const transport = new StdioClientTransport({ command, args, stderr: 'ignore' });
  const connecting = client.connect(transport);
  // connect() spawns before its first await: the pid is known here, and a failed handshake is cleaned up too.
  g.trackStdio(client, transport.pid);
  await connecting;
  if (transport.pid !== null) serverPids.set(client, transport.pid);
  return client;
}

/** The pid of the server behind a client from stdioClient. */
export function stdioPid(client: Client): number {
  const pid = serverPids.get(client);
  if (pid === undefined) throw new Error('not a stdio client of the bench');
  return pid;
}

export async function httpClient(g: ProcessGroup, url: string, token?: string): Promise<Client> {
  const client = newClient();
  const headers = token ? { authorization: `Bearer ${token}` } : undefined;
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return g.track(client);
}

async function sseClient(g: ProcessGroup, url: string): Promise<Client> {
  const client = newClient();
  await client.connect(new SSEClientTransport(new URL(url)));
  return g.track(client);
}

/**
 * Resolves once `tool` is listed: lists again on each list_changed notification (the handler is set before
 * the first list, so one that comes while a list is in flight is not missed). Fails after 30 s.
 */
export async function untilListed(client: Client, tool: string): Promise<void> {
  let resolveChanged = () => {};
  const nextChange = () => new Promise<void>((resolve) => (resolveChanged = resolve));
  let changed = nextChange();
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolveChanged());
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${tool} was never listed (no list_changed brought it within 30 s)`)), 30_000);
  });
  timedOut.catch(() => undefined); // raced below; only a list that hangs past the deadline meets it unraced
  try {
    for (;;) {
      if ((await client.listTools()).tools.some((t) => t.name === tool)) return;
      await Promise.race([changed, timedOut]);
      changed = nextChange();
    }
  } finally {
    clearTimeout(timer);
  }
}

export interface SpillwayHub {
  started: Started;
  pid: number;
  url: string;
  token: string;
  dataDir: string;
  /** Process start to the "listening" line, ms. */
  startupMs: number;
}

/** The servers a bench hub relays unless told otherwise: the fixture as `fx`, its tools unprefixed. */
const FIXTURE_ONLY = { fx: { type: 'stdio', command: NODE, args: [FIXTURE], prefix: false } };

/** A fresh Spillway data folder whose config relays `servers`. */
export async function writeHubConfig(dataDir: string, servers: Record<string, unknown> = FIXTURE_ONLY): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  await writeFile(join(dataDir, 'config.json'), JSON.stringify({ version: 1, servers, settings: { port: 0 } }));
}

/** `spillway serve` (the built dist/) on a fresh data folder (see writeHubConfig). */
export async function startSpillway(g: ProcessGroup, dataDir: string, servers?: Record<string, unknown>): Promise<SpillwayHub> {
  await writeHubConfig(dataDir, servers);
  const t = performance.now();
  const started = await g.start(NODE, [SPILLWAY, 'serve', '--data-dir', dataDir, '--port', '0'], /Spillway listening on (\S+)/);
  const startupMs = performance.now() - t;
  const token = (await readFile(join(dataDir, 'token'), 'utf8')).trim();
  return { started, pid: started.child.pid!, url: started.match[1], token, dataDir, startupMs };
}

export async function spillwayClient(g: ProcessGroup, hub: SpillwayHub): Promise<Relay> {
  const client = await httpClient(g, hub.url, hub.token);
  await untilListed(client, 'noop');
  return { client, tool: 'noop' };
}

/** The fixture's own Streamable HTTP endpoint (the SDK's server transport): the HTTP baseline. */
export async function directHttp(g: ProcessGroup): Promise<Relay> {
  const web = await g.start(NODE, [FIXTURE, '--http', '--port', '0'], /listening on (\S+)/);
  return { client: await httpClient(g, web.match[1]), tool: 'noop' };
}

/** supergateway 4.0.0 (`--stdio CMD`): SSE by default, or stateful Streamable HTTP. */
export async function supergateway(g: ProcessGroup, output: 'sse' | 'streamableHttp'): Promise<Relay> {
  const extra = output === 'sse' ? [] : ['--outputTransport', 'streamableHttp', '--stateful'];
  const args = [...LOOPBACK_ONLY, BIN('supergateway/dist/index.js'), '--stdio', `${NODE} ${FIXTURE}`, '--port', '0', '--logLevel', 'none', ...extra];
  const gw = await g.start(NODE, args, LISTENING);
  const base = `http://127.0.0.1:${gw.match[2]}`;
  const client = output === 'sse' ? await sseClient(g, `${base}/sse`) : await httpClient(g, `${base}/mcp`);
  return { client, tool: 'noop' };
}

/** mcp-hub 4.2.1 (`--port P --config FILE`), its MCP endpoint (SSE) at /mcp; tools are `<server>__<tool>`. */
export async function mcpHub(g: ProcessGroup, dir: string): Promise<Relay> {
  await mkdir(dir, { recursive: true });
  const config = join(dir, 'mcp-hub.json');
  await writeFile(config, JSON.stringify({ mcpServers: { fx: { command: NODE, args: [FIXTURE] } } }));
  // It keeps a workspace cache and logs under XDG folders: point them all at the temp folder.
  const home = { HOME: dir, XDG_STATE_HOME: dir, XDG_CONFIG_HOME: dir, XDG_CACHE_HOME: dir, XDG_DATA_HOME: dir };
  // Port 0 is refused (it keys its workspace cache by port).
  const port = await freePort();
  // It listens before its MCP endpoint exists (a GET /mcp then answers 500): wait for its servers instead.
  await g.start(NODE, [...LOOPBACK_ONLY, BIN('mcp-hub/dist/cli.js'), '--port', String(port), '--config', config], /servers started successfully/, {
    env: { ...process.env, ...home },
  });
  const client = await sseClient(g, `http://127.0.0.1:${port}/mcp`);
  await untilListed(client, 'fx__noop');
  return { client, tool: 'fx__noop' };
}

/** mcp-proxy 6.7.19 (`--host 127.0.0.1 --port P -- CMD`), its Streamable HTTP endpoint at /mcp. */
export async function mcpProxy(g: ProcessGroup): Promise<Relay> {
  const port = await freePort();
  const args = [...LOOPBACK_ONLY, BIN('mcp-proxy/dist/bin/mcp-proxy.mjs'), '--host', '127.0.0.1', '--port', String(port), '--', NODE, FIXTURE];
  const proxy = await g.start(NODE, args, LISTENING);
  return { client: await httpClient(g, `http://127.0.0.1:${proxy.match[2]}/mcp`), tool: 'noop' };
}
