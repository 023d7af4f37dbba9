/**
 * Builds the complete hub the way both the desktop app and the headless CLI run it: core, control API
 * (HTTP + SSE, and the dispatcher the IPC binding uses), and the UI served over HTTP.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import type { ServerResponse } from 'node:http';
import { join, resolve } from 'node:path';
import type { OsFacts as ClientOsFacts } from '../clients/index.js';
import type { BridgeLaunch, ClientsService } from '../clients/clients-service.js';
import { clientsHandlers } from '../control/clients-handlers.js';
import { appRegistryHandlers, registrySecretStore } from '../control/registry-handlers.js';
import { serverStartOutcome } from '../control/registry-update.js';
import { ControlDispatcher, hubHandlers, type HandlerMap } from '../control/control-handlers.js';
import { controlParts } from '../control/control-parts.js';
import type { HubControl } from '../control/hub-control.js';
import type { HubStatus } from '../control/hub-status.js';
import { createHttpControl } from '../control/http-control.js';
import { socketPathFor } from '../downstream/socket-endpoint.js';
import type { AppPaths } from '../files/app-paths.js';
import { HUB_IDENTITY_PATH, hubProof, loadOrCreateHubId } from '../files/hub-identity.js';
import { appRoot, appVersion } from '../files/version.js';
import { Hub, type HubOptions } from '../hub.js';
import { resolveServerSecrets } from '../secrets/server-secret-refs.js';
import { claimDataFolder, recordStartFailure, type DataFolderClaim } from './hub-record.js';

export interface AppHubOptions {
  paths: AppPaths;
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  port?: number;
  /** The port asked for but taken by another program: this run listens on a free one instead (headless --port-fallback). */
  takenPort?: number;
  useLoginShellPath?: boolean;
  upstream?: HubOptions['upstream'];
  /** When abandoned HTTP sessions are closed (tests shorten the idle timeout and the cap). */
  httpSessions?: HubOptions['httpSessions'];
  /** Folder of the built renderer; defaults to dist/renderer beside the app. */
  uiDir?: string;
  /** Where clients' config files are looked for (tests point HOME at a temp folder). */
  clientOs?: ClientOsFacts;
  /** How stdio clients start the bridge; the Electron shell passes the packaged app's own executable. */
  bridge?: BridgeLaunch;
  /** The bridge socket of this data folder (default: socketPathFor it): a hub that answers there serves the folder already. */
  socketPath?: string;
}

export interface AppHub {
  hub: Hub;
  /** The hub's control operations (add, update, remove servers; settings; policies). */
  control: HubControl;
  /** What the control API reports about the hub. */
  status: HubStatus;
  dispatcher: ControlDispatcher;
  /** The clients service, loaded on first use (it is not needed to start serving). */
  clients(): Promise<ClientsService>;
  /** Records that a client talked to the hub (HTTP token, or a bridge handshake). */
  noteClientSeen(clientId: string): void;
  /** Drift check after start: repairs connected clients whose entry went stale, and logs what it did. */
  repairClients(): Promise<void>;
  /** This hub's answer to a bridge's challenge on the bridge socket's handshake (files/hub-identity.ts). */
  proveIdentity(nonce: string): string;
  /** Lets another hub start on the data folder: called once this hub has stopped (and hub.json says so). */
  releaseFolder(): Promise<void>;
}

/** The bridge as development and the headless hub run it: this Node and the CLI script. */
export function defaultBridgeLaunch(dataDir: string): BridgeLaunch {
  return { command: process.execPath, args: [join(appRoot(), 'electron', 'cli', 'spillway.js'), 'bridge', '--data-dir', dataDir] };
}

/**
 * The bridge with `--config FILE` when the config file is not the data folder's config.json (--config,
 * SPILLWAY_CONFIG): a bridge that starts the hub where none ran yet has no hub.json to find that file in.
 */
export function bridgeWithConfig(bridge: BridgeLaunch, paths: Pick<AppPaths, 'dataDir' | 'configFile'>): BridgeLaunch {
  const configFile = resolve(paths.configFile);
  if (configFile === resolve(paths.dataDir, 'config.json') || bridge.args.includes('--config')) return bridge;
  return { ...bridge, args: [...bridge.args, '--config', configFile] };
}

/**
 * Builds the hub; a config it cannot load is recorded (event log, hub.json) before the error is thrown on.
 * Throws SocketInUseError, having opened and changed nothing, when another hub serves the data folder or
 * is starting on it (hub-record.ts, claimDataFolder): the desktop app and `spillway serve` both start here.
 */
export async function createAppHub(options: AppHubOptions): Promise<AppHub> {
  const socketPath = options.socketPath ?? socketPathFor({ dataDir: options.paths.dataDir, platform: options.platform, uid: process.getuid?.() });
  const folder = await claimDataFolder(options.paths, socketPath);
  try {
    return await buildAppHub(options, folder);
  } catch (err) {
    await folder.release();
    throw err;
  }
}

async function buildAppHub(options: AppHubOptions, folder: DataFolderClaim): Promise<AppHub> {
  const hubId = await loadOrCreateHubId(options.paths.dataDir);
  const { ClientTokens } = await import('../clients/client-tokens.js');
  // What the tokens file has to tell (a damaged file set aside) goes to the Activity log, held until the hub exists.
  const told: { hub?: Hub; untold: string[] } = { untold: [] };
  const tokensLog = (message: string) => (told.hub ? told.hub.emit({ type: 'log', level: 'warn', message }) : told.untold.push(message));
  const tokens = await ClientTokens.open(join(options.paths.dataDir, 'client-tokens.json'), { log: tokensLog });
  // Kept with the tokens, so the Clients view's "last seen" survives a restart (written at most once a minute per client).
  const noteClientSeen = (clientId: string) => void tokens.noteSeen(clientId);
  const hub: Hub = await Hub.create({
    paths: options.paths,
    version: appVersion(),
    platform: options.platform,
    env: options.env,
    port: options.port,
    useLoginShellPath: options.useLoginShellPath,
    upstream: options.upstream,
    httpSessions: options.httpSessions,
    // Every MCP request with a client's own token passes here: that is when the client was last seen.
    authenticateClient: (token) => {
      const clientId = tokens.lookup(token);
      if (!clientId) return undefined;
      noteClientSeen(clientId);
      return { clientId };
    },
    // The control API is built on the hub below; requests reach it only once the hub has started.
    handleOther: (req, res, url) =>
      url.pathname === HUB_IDENTITY_PATH
        ? answerIdentity(res, url, (nonce) => hubProof(hubId, nonce, { port: hub.endpoint.port }))
        : handleControl(req, res, url),
  }).catch(async (err: unknown) => {
    await recordStartFailure(options.paths, err);
    throw err;
  });
  told.hub = hub;
  for (const message of told.untold.splice(0)) tokensLog(message);
  // Client tokens are secrets like the hub's own (issue 13, item 12); the joined string changes when they do.
  hub.events.secrets.track(
    'client tokens',
    () => tokens.known().join('\n'),
    (all) => all.split('\n'),
  );
  const parts = controlParts(hub);
  const platform = options.platform === 'darwin' || options.platform === 'win32' ? options.platform : 'linux';
  let service: Promise<ClientsService> | undefined;
  const makeClients = async () => {
    const [{ ClientsService }, { createClientRegistry }, { hubEndpoint }] = await Promise.all([
      import('../clients/clients-service.js'),
      import('../clients/index.js'),
      import('../clients/entry-owner.js'),
    ]);
    return new ClientsService({
      registry: createClientRegistry({
        os: options.clientOs ?? { home: homedir(), platform, env: { ...options.env } },
        backupDir: options.paths.backupDir,
      }),
      tokens,
      bridge: bridgeWithConfig(options.bridge ?? defaultBridgeLaunch(options.paths.dataDir), options.paths),
      dataDir: options.paths.dataDir,
      platform: options.platform,
      host: {
        // The port it listens on now, and the one its next start asks for (its --port, else the setting).
        endpoint: () =>
          hubEndpoint(hub.endpoint.port, options.takenPort ?? options.port ?? hub.config.settings.port, options.takenPort !== undefined),
        upstreamConfigs: () => hub.config.servers,
        addUpstream: (req) => parts.control.addUpstream(req),
        lastSeen: (id) => tokens.lastSeen(id),
        resolveSecrets: (id, cfg) => resolveServerSecrets(hub.secretStore, id, cfg),
      },
    });
  };
  const clients = () => (service ??= makeClients());
  const registry = appRegistryHandlers({
    ...options,
    settings: () => hub.settings,
    serverPath: () => hub.serverPath.current({ reread: true }),
    addUpstream: (req) => parts.control.addUpstream(req),
    secrets: registrySecretStore(hub.secretStore),
    upstreamConfigs: () => hub.config.servers,
    updateUpstream: (req) => parts.control.updateUpstream(req),
    // An update waits for the new version to start, and goes back to the one before when it does not.
    startOutcome: serverStartOutcome(hub),
    onNotice: (message) => hub.emit({ type: 'log', level: 'warn', message }),
    onInstalling: ({ name, version }) => hub.emit({ type: 'log', level: 'info', message: `Installing ${name}${version ? ` ${version}` : ''}…` }),
    onRemovedUnused: (folders) =>
      hub.emit({
        type: 'log',
        level: 'info',
        message: `Removed ${folders.length} downloaded server ${folders.length === 1 ? 'package' : 'packages'} no server uses any more`,
      }),
  });
  const handlers: HandlerMap = { ...hubHandlers(parts), ...clientsHandlers(clients), ...registry };
  const dispatcher = new ControlDispatcher(handlers, (text) => hub.events.secrets.mask(text));
  const uiDir = options.uiDir ?? join(appRoot(), 'dist', 'renderer');
  const handleControl = createHttpControl({
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
  const proveIdentity = (nonce: string) => hubProof(hubId, nonce, 'socket');
  return {
    hub,
    control: parts.control,
    status: parts.status,
    dispatcher,
    clients,
    noteClientSeen,
    repairClients,
    proveIdentity,
    releaseFolder: () => folder.release(),
  };
}

/** A bridge asks whether this is its data folder's hub (issue 13, item 2): the proof, never the id. */
async function answerIdentity(res: ServerResponse, url: URL, prove: (nonce: string) => string): Promise<boolean> {
  const nonce = url.searchParams.get('nonce') ?? '';
  const valid = nonce.length >= 16 && nonce.length <= 200;
  res.writeHead(valid ? 200 : 400, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(valid ? { proof: prove(nonce) } : { error: 'nonce: 16 to 200 characters' }));
  return true;
}
