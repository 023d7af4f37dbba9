/**
 * What the registry Update tests share (audit s20): a real in-process app hub on a temp data folder, the
 * MCP Registry stand-in (or the test's own registry) and the npm registry fixture, the registry methods
 * as the app hub makes them with its start watch, and a restart of the hub on the same data folder.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppHub } from '../../electron/core/app/app-hub.js';
import type { HandlerMap } from '../../electron/core/control/control-handlers.js';
import { appRegistryHandlers, registrySecretStore } from '../../electron/core/control/registry-handlers.js';
import { serverStartOutcome } from '../../electron/core/control/registry-update.js';
import type { Started } from './processes.js';
import { startNpmFixture, startRegistryFixture, startRegistryHub } from './registry-hub.js';

export interface UpdateHubOptions {
  /** The temp folder's name prefix. */
  prefix: string;
  /** The npm registry fixture's package (`name@version`); none when the test installs no npm package. */
  npmAs?: string;
  /** The test's own MCP Registry (a bundle's); else the shared registry stand-in is started. */
  registryUrl?: string;
}

export interface UpdateHub {
  dir: string;
  dataDir: string;
  /** The data folder's npm packages folder. */
  packages: string;
  /** The npm registry fixture's URL ('' without one). */
  npmUrl: string;
  /** The hub running now (a new one after restart). */
  app: AppHub;
  /** A server's config as config.json holds it. */
  saved(id: string): Promise<Record<string, unknown> & { args: string[] }>;
  /**
   * The registry methods as the app hub makes them, with the hub's start watch. Given another config
   * file, so that making them neither cleans the data folder nor checks updates at start (the hub's own did).
   * `npmRegistry`: the npm registry they install from (the fixture's by default).
   */
  handlers(npmRegistry?: string): HandlerMap;
  /** Switches the npm fixture's newer version (patch + 1, the `latest` tag) on or off. */
  offerNewer(newer: boolean): Promise<void>;
  /** Stops the hub and starts a new one on the same data folder. */
  restart(): Promise<AppHub>;
  /** Stops everything and removes the temp folder. */
  stop(): Promise<void>;
}

export async function startUpdateHub(options: UpdateHubOptions): Promise<UpdateHub> {
  const registry: (Started & { url: string }) | undefined = options.registryUrl ? undefined : await startRegistryFixture();
  const npm = options.npmAs ? await startNpmFixture(options.npmAs) : undefined;
  const dir = await mkdtemp(join(tmpdir(), options.prefix));
  const dataDir = join(dir, 'data');
  const npmUrl = npm?.url ?? '';
  const registryUrl = options.registryUrl ?? registry!.url;
  const env = npm ? { npm_config_registry: npm.url, NPM_CONFIG_REGISTRY: undefined } : {};
  const start = () => startRegistryHub({ dir, registryUrl, env });
  const hub: UpdateHub = {
    dir,
    dataDir,
    packages: join(dataDir, 'packages'),
    npmUrl,
    app: await start(),
    saved: async (id) => JSON.parse(await readFile(join(dataDir, 'config.json'), 'utf8')).servers[id],
    handlers: (npmRegistry = npmUrl) => {
      const app = hub.app;
      return appRegistryHandlers({
        paths: { dataDir, configFile: join(dir, 'not-the-hub-config.json') },
        platform: process.platform,
        env: npmRegistry ? { npm_config_registry: npmRegistry } : {},
        serverPath: () => app.hub.serverPath.current({ reread: true }),
        settings: () => app.hub.settings,
        addUpstream: (req) => app.control.addUpstream(req),
        secrets: registrySecretStore(app.hub.secretStore),
        upstreamConfigs: () => app.hub.config.servers,
        updateUpstream: (req) => app.control.updateUpstream(req),
        startOutcome: serverStartOutcome(app.hub),
      });
    },
    offerNewer: async (newer) => {
      await fetch(`${npmUrl}/-/fixture`, { method: 'POST', body: JSON.stringify({ newer }) });
    },
    restart: async () => {
      await hub.app.hub.stop();
      hub.app = await start();
      return hub.app;
    },
    stop: async () => {
      await hub.app?.hub.stop();
      await registry?.stop();
      await npm?.stop();
      await rm(dir, { recursive: true, force: true, maxRetries: 5 });
    },
  };
  return hub;
}

/** Puts version `version` of an npm package in place whose program is `script` (a release that crashes, or migrates). */
export async function placePackage(packages: string, name: string, version: string, script: string): Promise<void> {
  const folder = join(packages, `${name}@${version}`, 'node_modules', name);
  await mkdir(join(folder, 'dist'), { recursive: true });
  await writeFile(join(folder, 'package.json'), JSON.stringify({ name, version, bin: 'dist/index.js' }));
  await writeFile(join(folder, 'dist', 'index.js'), script);
}
