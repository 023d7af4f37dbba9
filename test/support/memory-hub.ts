/**
 * The real hub in-process with nothing on the network: its upstreams are SDK McpServers reached over the
 * SDK's in-memory linked pair, and its clients connect with `hub.connectSession` over another pair.
 * Data and config live in the folder the test gives (reuse it to restart a hub on the same files).
 */
import { writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { resolvePaths } from '../../electron/core/files/app-paths.js';
import { Hub } from '../../electron/core/hub.js';

export interface MemoryHubOptions {
  /** The data folder (config.json is written there). */
  dir: string;
  /** One in-process server per upstream id: called on every (re)connect for a fresh McpServer. */
  servers: Record<string, () => McpServer>;
  /** Settings and policies of config.json; the servers entry is made from `servers`. */
  config?: { settings?: unknown; policies?: unknown };
  /** The call cache's clock. */
  cacheClock?: () => number;
}

export interface MemoryHub {
  hub: Hub;
  /** An SDK client connected to the hub as a stdio client would be. */
  connect(name?: string): Promise<Client>;
  stop(): Promise<void>;
}

/** Starts a hub on in-memory upstreams and resolves once every upstream is ready. */
export async function startMemoryHub(options: MemoryHubOptions): Promise<MemoryHub> {
  const paths = resolvePaths({ dataDir: options.dir, os: { home: homedir(), platform: process.platform, env: {} } });
  const servers = Object.fromEntries(
    Object.keys(options.servers).map((id) => [id, { type: 'stdio', command: `in-memory-${id}`, startMode: 'always' }]),
  );
  await writeFile(paths.configFile, JSON.stringify({ version: 1, servers, ...options.config }, null, 2));
  const hub = await Hub.create({
    paths,
    version: '0.0.0-test',
    platform: process.platform,
    env: {},
    listen: false,
    ...(options.cacheClock ? { cacheClock: options.cacheClock } : {}),
    createTransport: async (id) => {
      const [upstreamSide, serverSide] = InMemoryTransport.createLinkedPair();
      await options.servers[id]().connect(serverSide);
      return { transport: upstreamSide };
    },
  });
  const ready = Promise.all(Object.keys(options.servers).map((id) => readyOf(hub, id)));
  await hub.start();
  await ready;
  const clients: Client[] = [];
  return {
    hub,
    async connect(name = 'memory-client') {
      const [clientSide, hubSide] = InMemoryTransport.createLinkedPair();
      const client = new Client({ name, version: '1.0.0' });
      await Promise.all([hub.connectSession(hubSide, 'stdio'), client.connect(clientSide)]);
      clients.push(client);
      return client;
    },
    async stop() {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await hub.stop();
      // New pins are saved in the background and stop does not wait for them: the folder may go next.
      await hub.policy.pins.flush();
    },
  };
}

/** Resolves when the upstream reports ready, and fails when it reports an error. */
function readyOf(hub: Hub, id: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const off = hub.events.subscribe((e) => {
      if (e.type !== 'upstream.status' || e.server !== id) return;
      if (e.status === 'ready') {
        off();
        resolve();
      } else if (e.status === 'error') {
        off();
        reject(new Error(`${id}: ${e.error}`));
      }
    });
  });
}
