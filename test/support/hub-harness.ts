/**
 * Starts a real hub in-process on 127.0.0.1:0 with temp data/config folders, and connects SDK clients to
 * its HTTP endpoint. Waits on the hub's own events, never on sleeps.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { SessionTransportKind } from '../../electron/core/downstream/session.js';
import type { HubEvent } from '../../shared/events.js';
import { resolvePaths } from '../../electron/core/files/app-paths.js';
import { createAppHub, type AppHub, type AppHubOptions } from '../../electron/core/app/app-hub.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const NODE = process.execPath;
export const fixture = (name: string) => join(ROOT, 'test', 'fixtures', name);
export const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const FILESYSTEM = join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
export const MEMORY = join(ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');

export interface TestHub extends AppHub {
  dir: string;
  url: string;
  token: string;
  connect(options?: ClientOptions, name?: string): Promise<Client>;
  /**
   * A client served in-process over the SDK's linked pair, as a stdio (or bridge) session is: the hub's
   * messages to it arrive in the order it sent them, on one channel.
   */
  connectInProcess(name?: string, kind?: SessionTransportKind): Promise<Client>;
  waitFor(predicate: (e: HubEvent) => boolean, what?: string): Promise<HubEvent>;
  waitForStatus(server: string, status: string): Promise<void>;
  api<T = unknown>(method: string, body?: unknown): Promise<{ ok: boolean; value?: T; code?: string; message?: string; field?: string }>;
  stop(): Promise<void>;
}

/** A port nothing listens on right now, for a hub that must keep one port (0 would be refused by client entries). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

type TestAppHubOptions = { uiDir?: string; clientOs?: AppHubOptions['clientOs']; port?: number; httpSessions?: AppHubOptions['httpSessions'] };

/** The app's files in the data folder `dir` (the real HOME is only read for defaults, never written). */
export const testPaths = (dir: string) => resolvePaths({ dataDir: dir, os: { home: homedir(), platform: process.platform, env: {} } });

/**
 * An app hub (not started) on the data folder `dir` with quick reconnects, as startTestHub makes it; for
 * tests that keep the folder across restarts.
 */
export function createTestAppHub(dir: string, options: TestAppHubOptions = {}): Promise<AppHub> {
  return createAppHub({
    paths: testPaths(dir),
    platform: process.platform,
    env: process.env,
    port: options.port ?? 0,
    upstream: { backoffBaseMs: 50, backoffMaxMs: 500, connectTimeoutMs: 20_000 },
    uiDir: options.uiDir,
    httpSessions: options.httpSessions,
    // Never the real user's files: clients are looked for under a temp HOME unless a test gives one.
    clientOs: options.clientOs ?? { home: join(dir, 'home'), platform: 'linux', env: { HOME: join(dir, 'home') } },
  });
}

export async function startTestHub(
  /** The config, or a function of the data folder that prepares it and gives the config. */
  config: unknown,
  options: TestAppHubOptions = {},
): Promise<TestHub> {
  const dir = await mkdtemp(join(tmpdir(), 'spillway-test-'));
  const cfg: unknown = typeof config === 'function' ? await (config as (dir: string) => unknown)(dir) : config;
  await writeFile(testPaths(dir).configFile, JSON.stringify(cfg, null, 2));
  const app = await createTestAppHub(dir, options);
  await app.hub.start();
  const clients: Client[] = [];
  const hub = app.hub;

  const waitFor: TestHub['waitFor'] = (predicate, what = 'event') =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`timed out waiting for ${what}`));
      }, 25_000);
      const off = hub.events.subscribe((e) => {
        if (predicate(e)) {
          clearTimeout(timer);
          off();
          resolve(e);
        }
      });
    });

  return {
    ...app,
    dir,
    url: hub.url,
    token: hub.token,
    async connect(clientOptions, name = 'test-client') {
      const client = new Client({ name, version: '1.0.0' }, clientOptions);
      const transport = new StreamableHTTPClientTransport(new URL(hub.url), {
        requestInit: { headers: { authorization: `Bearer ${hub.token}` } },
      });
      await client.connect(transport);
      clients.push(client);
      return client;
    },
    async connectInProcess(name = 'test-client', kind = 'stdio') {
      const [clientSide, hubSide] = InMemoryTransport.createLinkedPair();
      const client = new Client({ name, version: '1.0.0' });
      await Promise.all([hub.connectSession(hubSide, kind), client.connect(clientSide)]);
      clients.push(client);
      return client;
    },
    waitFor,
    async waitForStatus(server, status) {
      if (hub.pool.get(server)?.status === status) return;
      await waitFor((e) => e.type === 'upstream.status' && e.server === server && e.status === status, `${server} ${status}`);
    },
    async api<T>(method: string, body: unknown = {}) {
      const res = await fetch(`${hub.endpoint.origin}/api/${method}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${hub.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return (await res.json()) as { ok: boolean; value?: T; code?: string; message?: string; field?: string };
    },
    async stop() {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await hub.stop();
      // Retried: a file the hub's last write made may still be closing as the folder goes (ENOTEMPTY).
      await rm(dir, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}

/** A stdio server entry running a node script. */
export const nodeServer = (script: string, args: string[] = [], extra: Record<string, unknown> = {}) => ({
  command: NODE,
  args: [script, ...args],
  ...extra,
});
