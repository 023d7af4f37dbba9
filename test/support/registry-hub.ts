/**
 * A real in-process app hub for the registry tests (issue 16): its data folder in a temp folder, its
 * registry URL a local fixture, and no node or npx on its PATH (an empty folder), so what the catalog
 * installs runs on the hub's own runtime. Also the control API, the hub's tools and its events as the
 * registry tests use them, and the built renderer opened in Chromium for the Browse tests.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser, Page } from 'playwright-core';
import type { HubEvent } from '../../shared/events.js';
import { createAppHub, type AppHub } from '../../electron/core/app/app-hub.js';
import { resolvePaths } from '../../electron/core/files/app-paths.js';
import { launchChromium, openPage, type OpenedPage } from './browser.js';
import { fixture, ROOT } from './hub-harness.js';
import { spawnUntil, type Started } from './processes.js';

/** Where the renderer build is served from. */
export const UI_DIR = join(ROOT, 'dist', 'renderer');

export interface RegistryHubOptions {
  /** The test's temp folder: the hub's data folder is <dir>/data, its PATH <dir>/bin (empty). */
  dir: string;
  /** The registry URL setting (the local registry fixture). */
  registryUrl: string;
  /** Added to the hub's environment (e.g. the npm registry fixture as npm_config_registry). */
  env?: Record<string, string | undefined>;
  /** Serve the built renderer (the Browse tests). */
  uiDir?: string;
  /** Start servers with the PATH of the login shell in env.SHELL, as the desktop app does. */
  useLoginShellPath?: boolean;
}

/**
 * Starts the hub on `<dir>/data`. Its config.json has no servers and the registry URL, unless the data
 * folder already has one (a restart keeps what the previous hub saved).
 */
export async function startRegistryHub(options: RegistryHubOptions): Promise<AppHub> {
  const { dir } = options;
  const paths = resolvePaths({ dataDir: join(dir, 'data'), os: { home: homedir(), platform: process.platform, env: {} } });
  const emptyBin = join(dir, 'bin');
  await mkdir(emptyBin, { recursive: true });
  await mkdir(paths.dataDir, { recursive: true });
  if (!existsSync(paths.configFile)) {
    await writeFile(paths.configFile, JSON.stringify({ version: 1, servers: {}, settings: { registryUrl: options.registryUrl } }));
  }
  const app = await createAppHub({
    paths,
    platform: process.platform,
    // No node, no npx: the hub's PATH is an empty folder.
    env: { ...process.env, PATH: emptyBin, ...options.env },
    port: 0,
    useLoginShellPath: options.useLoginShellPath,
    upstream: { backoffBaseMs: 50, backoffMaxMs: 500, connectTimeoutMs: 30_000 },
    uiDir: options.uiDir,
    clientOs: { home: join(dir, 'home'), platform: 'linux', env: { HOME: join(dir, 'home') } },
  });
  await app.hub.start();
  return app;
}

export interface ApiAnswer<T> {
  ok: boolean;
  value?: T;
  code?: string;
  message?: string;
  field?: string;
}

/** One control API call, as the UI makes it. */
export async function callApi<T>(app: AppHub, method: string, body: unknown = {}): Promise<ApiAnswer<T>> {
  const res = await fetch(`${app.hub.endpoint.origin}/api/${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${app.hub.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await res.json()) as ApiAnswer<T>;
}

/** The names of the tools the hub lists to an MCP client. */
export async function hubToolNames(app: AppHub, clientName: string): Promise<string[]> {
  const client = new Client({ name: clientName, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(app.hub.url), { requestInit: { headers: { authorization: `Bearer ${app.hub.token}` } } }),
  );
  try {
    return (await client.listTools()).tools.map((t) => t.name);
  } finally {
    await client.close();
  }
}

/** The hub's next event that matches (subscribe before the action that causes it). */
export function nextHubEvent(app: AppHub, match: (e: HubEvent) => boolean, what: string): Promise<HubEvent> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`timed out waiting for ${what}`));
    }, 60_000);
    const off = app.hub.events.subscribe((e) => {
      if (match(e)) {
        clearTimeout(timer);
        off();
        resolve(e);
      }
    });
  });
}

/** Resolves once the server has the status (at once when it has it already). */
export async function waitForStatus(app: AppHub, id: string, status: string): Promise<void> {
  if (app.hub.pool.get(id)?.status === status) return;
  await nextHubEvent(app, (e) => e.type === 'upstream.status' && e.server === id && e.status === status, `${id} ${status}`);
}

/** Throws the next step when the renderer has not been built (the Browse tests serve it). */
export function requireRendererBuild(): string {
  if (!existsSync(join(UI_DIR, 'index.html'))) {
    throw new Error('dist/renderer is missing: run `npx vite build --config renderer/vite.config.ts` first (npm test builds it).');
  }
  return UI_DIR;
}

/** Chromium at 800x600 on the hub's UI, signed in with its token, the Servers view shown. */
export async function openHubUi(app: AppHub): Promise<{ browser: Browser; opened: OpenedPage; page: Page }> {
  const browser = await launchChromium();
  const opened = await openPage(browser, `${app.hub.endpoint.origin}/?token=${app.hub.token}`, { width: 800, height: 600 });
  await opened.page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
  return { browser, opened, page: opened.page };
}

/** The MCP Registry stand-in (../shared/registry-fixture, real entries), on a free port. */
export async function startRegistryFixture(): Promise<Started & { url: string }> {
  const r = await spawnUntil(
    process.execPath,
    [join(ROOT, '..', 'shared', 'registry-fixture', 'server.mjs'), '--port', '0'],
    /REGISTRY-FIXTURE (http:\/\/\S+)/,
  );
  return { ...r, url: r.match[1]! };
}

/** The npm registry fixture (test/fixtures/npm-registry-fixture.mjs) serving `as` (`name@version`), on a free port. */
export async function startNpmFixture(as: string): Promise<Started & { url: string }> {
  const n = await spawnUntil(
    process.execPath,
    [fixture('npm-registry-fixture.mjs'), '--port', '0', '--as', as],
    /NPM-REGISTRY-FIXTURE (http:\/\/\S+)/,
  );
  return { ...n, url: n.match[1]! };
}
