/**
 * A real in-process hub for UI tests on a fresh temporary HOME: the built renderer, a fixed port (so the
 * same hub can be stopped and started again on it), a Claude Desktop config holding one server (so the
 * first-run setup shows), and, if asked, the big-result fixture server (so a call can spill) and the
 * registry fixture (so Browse lists servers).
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { HubEvent } from '../../shared/events.js';
import { resolvePaths, type AppPaths } from '../../electron/core/files/app-paths.js';
import { createAppHub, type AppHub } from '../../electron/core/app/app-hub.js';
import { EVERYTHING, NODE, ROOT, fixture, freePort } from './hub-harness.js';
import { spawnUntil, type Started } from './processes.js';

export const UI_DIR = join(ROOT, 'dist', 'renderer');
const REGISTRY_FIXTURE = join(ROOT, '..', 'shared', 'registry-fixture', 'server.mjs');

export interface UiHub {
  dir: string;
  home: string;
  /** The running hub (a new object after restart()). */
  app: AppHub;
  /** The page to open: trades the token for a cookie. */
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Calls a control method with the token, as the window does. */
  api<T = unknown>(method: string, body?: unknown): Promise<{ ok: boolean; value?: T; message?: string }>;
  /** An SDK client connected to the hub's MCP endpoint. */
  connect(name?: string): Promise<Client>;
  /** Resolves on the first hub event that matches (call before the action that causes it). */
  nextEvent(predicate: (e: HubEvent) => boolean): Promise<HubEvent>;
  close(): Promise<void>;
}

export interface UiHubOptions {
  /** Extra settings written into config.json (e.g. a registryUrl). */
  settings?: Record<string, unknown>;
  /** Configure the big-result server from the start (then setup does not show: it is not a first run). */
  withBigServer?: boolean;
  /** The servers in the temporary HOME's Claude Desktop config, offered by setup (default: server-everything). */
  claudeServers?: Record<string, { command: string; args: string[] }>;
  /** Serve the registry fixture (five servers a page) as the registryUrl setting; stopped by close(). */
  withRegistry?: boolean;
}

/** The big-result fixture as a server entry: its `big` tool returns as many characters as asked. */
export const BIG_SERVER = { type: 'stdio', command: NODE, args: [fixture('big-result-server.mjs')], startMode: 'always' } as const;

/** Fails early, with what to run, when the renderer has not been built. */
export function requireBuiltUi(): void {
  if (!existsSync(join(UI_DIR, 'index.html'))) {
    throw new Error('dist/renderer is missing: run `npx vite build --config renderer/vite.config.ts` first (npm test builds it).');
  }
}

export async function startUiHub(options: UiHubOptions = {}): Promise<UiHub> {
  requireBuiltUi();
  if (!options.withRegistry) return startUiHubWith(options);
  const registry = await spawnUntil(NODE, [REGISTRY_FIXTURE, '--port', '0', '--page-size', '5'], /REGISTRY-FIXTURE (http:\/\/\S+)/);
  return startUiHubWith(options, registry).catch(async (error: unknown) => {
    await registry.stop();
    throw error;
  });
}

async function startUiHubWith(options: UiHubOptions, registry?: Started): Promise<UiHub> {
  const settings = { ...options.settings, ...(registry ? { registryUrl: registry.match[1] } : {}) };
  const dir = await mkdtemp(join(tmpdir(), 'spillway-ui-'));
  const home = join(dir, 'home');
  await mkdir(join(home, '.config', 'Claude'), { recursive: true });
  await writeFile(
    join(home, '.config', 'Claude', 'claude_desktop_config.json'),
    JSON.stringify({ mcpServers: options.claudeServers ?? { everything: { command: NODE, args: [EVERYTHING, 'stdio'] } } }, null, 2),
  );
  const os = { home, platform: 'linux' as const, env: { HOME: home } };
  const paths: AppPaths = resolvePaths({ dataDir: join(dir, 'data'), os });
  await mkdir(paths.dataDir, { recursive: true });
  const servers = options.withBigServer ? { big: BIG_SERVER } : {};
  await writeFile(paths.configFile, JSON.stringify({ version: 1, servers, settings }));
  const port = await freePort();
  const create = () =>
    createAppHub({
      paths,
      platform: 'linux',
      env: process.env,
      port,
      upstream: { backoffBaseMs: 50, backoffMaxMs: 500, connectTimeoutMs: 20_000 },
      uiDir: UI_DIR,
      clientOs: os,
    });
  let app = await create();
  await app.hub.start();
  let running = true;
  const clients: Client[] = [];

  const ui: UiHub = {
    dir,
    home,
    get app() {
      return app;
    },
    url: `${app.hub.endpoint.origin}/?token=${app.hub.token}`,
    async start() {
      app = await create();
      await app.hub.start();
      running = true;
    },
    async stop() {
      running = false;
      await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
      await app.hub.stop();
    },
    async api<T>(method: string, body: unknown = {}) {
      const res = await fetch(`${app.hub.endpoint.origin}/api/${method}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${app.hub.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return (await res.json()) as { ok: boolean; value?: T; message?: string };
    },
    async connect(name = 'ui-test-client') {
      const client = new Client({ name, version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(app.hub.url), { requestInit: { headers: { authorization: `Bearer ${app.hub.token}` } } }),
      );
      clients.push(client);
      return client;
    },
    nextEvent(predicate) {
      return new Promise((resolve) => {
        const off = app.hub.events.subscribe((e) => {
          if (predicate(e)) {
            off();
            resolve(e);
          }
        });
      });
    },
    async close() {
      if (running) await ui.stop();
      await registry?.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return ui;
}

/** Adds the big-result server and makes one call that spills, so Activity, its details and Savings have something to show. */
export async function spillOneCall(ui: UiHub): Promise<Client> {
  const ready = ui.nextEvent((e) => e.type === 'upstream.status' && e.server === 'big' && e.status === 'ready');
  expect((await ui.api('upstreams.add', { id: 'big', config: BIG_SERVER })).ok).toBe(true);
  await ready;
  const client = await ui.connect();
  const big = (await client.listTools()).tools.find((t) => t.name.endsWith('big'));
  expect(big).toBeTruthy();
  await client.callTool({ name: big!.name, arguments: { chars: 60_000 } });
  return client;
}
