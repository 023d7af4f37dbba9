/**
 * Builds the complete hub the way both the desktop app and the headless CLI run it: core, control API
 * (HTTP + SSE, and the dispatcher the IPC binding uses), and the UI served over HTTP.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { OsFacts as ClientOsFacts } from './clients/index.js';
import type { BridgeLaunch, ClientsService } from './clients-service.js';
import { clientsHandlers } from './control/clients-handlers.js';
import type { AppPaths } from './app-paths.js';
import { ControlDispatcher, hubHandlers, type HandlerMap } from './control/control-handlers.js';
import { createHttpControl } from './control/http-control.js';
import { Hub, type HubOptions } from './hub.js';
import { appRoot, appVersion } from './version.js';

export interface AppHubOptions {
  paths: AppPaths;
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  port?: number;
  useLoginShellPath?: boolean;
  upstream?: HubOptions['upstream'];
  /** Folder of the built renderer; defaults to dist/renderer beside the app. */
  uiDir?: string;
  /** Where clients' config files are looked for (tests point HOME at a temp folder). */
  clientOs?: ClientOsFacts;
  /** How stdio clients start the bridge; the Electron shell passes the packaged app's own executable. */
  bridge?: BridgeLaunch;
}

export interface AppHub {
  hub: Hub;
  dispatcher: ControlDispatcher;
  /** The clients service, loaded on first use (it is not needed to start serving). */
  clients(): Promise<ClientsService>;
  /** Records that a client talked to the hub (HTTP token, or a bridge handshake). */
  noteClientSeen(clientId: string): void;
  /** Drift check after start: repairs connected clients whose entry went stale, and logs what it did. */
  repairClients(): Promise<void>;
}

/** The bridge as development and the headless hub run it: this Node and the CLI script. */
export function defaultBridgeLaunch(dataDir: string): BridgeLaunch {
  return { command: process.execPath, args: [join(appRoot(), 'electron', 'cli', 'spillway.js'), 'bridge', '--data-dir', dataDir] };
}

export async function createAppHub(options: AppHubOptions): Promise<AppHub> {
  const hub = await Hub.create({
    paths: options.paths,
    version: appVersion(),
    platform: options.platform,
    env: options.env,
    port: options.port,
    useLoginShellPath: options.useLoginShellPath,
    upstream: options.upstream,
  });
  const { ClientTokens } = await import('./client-tokens.js');
  const tokens = await ClientTokens.open(join(options.paths.dataDir, 'client-tokens.json'));
  hub.authenticateClient = (token) => {
    const clientId = tokens.lookup(token);
    return clientId ? { clientId } : undefined;
  };
  const seen = new Map<string, string>();
  const noteClientSeen = (clientId: string) => seen.set(clientId, new Date().toISOString());
  hub.endpoint.onClientSeen = noteClientSeen;
  const platform = options.platform === 'darwin' || options.platform === 'win32' ? options.platform : 'linux';
  let service: Promise<ClientsService> | undefined;
  const makeClients = async () => {
    const [{ ClientsService }, { createClientRegistry }] = await Promise.all([import('./clients-service.js'), import('./clients/index.js')]);
    return new ClientsService({
      registry: createClientRegistry({
        os: options.clientOs ?? { home: homedir(), platform, env: { ...options.env } },
        backupDir: options.paths.backupDir,
      }),
      tokens,
      bridge: options.bridge ?? defaultBridgeLaunch(options.paths.dataDir),
      host: {
        endpointUrl: () => `http://127.0.0.1:${hub.endpoint.port || hub.config.settings.port}/mcp`,
        upstreamConfigs: () => hub.config.servers,
        addUpstream: (req) => hub.addUpstream(req),
        lastSeen: (id) => seen.get(id),
      },
    });
  };
  const clients = () => (service ??= makeClients());
  const handlers: HandlerMap = { ...hubHandlers(hub), ...clientsHandlers(clients) };
  const dispatcher = new ControlDispatcher(handlers);
  const uiDir = options.uiDir ?? join(appRoot(), 'dist', 'renderer');
  hub.handleOther = createHttpControl({
    dispatcher,
    token: () => hub.token,
    subscribe: (fn) => hub.events.subscribe(fn),
    uiDir: existsSync(join(uiDir, 'index.html')) ? uiDir : undefined,
  });
  const repairClients = async () => {
    try {
      for (const r of await (await clients()).repair()) {
        hub.emit({
          type: 'log',
          level: r.error ? 'warn' : 'info',
          message: r.error
            ? `Could not repair Spillway's entry for ${r.id}: ${r.error}`
            : `Repaired Spillway's entry for ${r.id} (a backup was kept).${r.restartHint ? ` ${r.restartHint}` : ''}`,
        });
      }
    } catch (err) {
      hub.emit({ type: 'log', level: 'warn', message: `Client drift check failed: ${(err as Error).message}` });
    }
  };
  return { hub, dispatcher, clients, noteClientSeen, repairClients };
}
