import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { parseArgs } from 'node:util';
import { resolvePaths } from '../../core/files/app-paths.js';
import { readHubId, readHubRecord } from '../../core/files/hub-identity.js';
import { socketPathFor } from '../../core/downstream/socket-endpoint.js';
import { Bridge } from './bridge.js';
import { hubLauncher, type HubLauncher } from './launcher.js';

/** `spillway bridge [--data-dir DIR] [--config FILE] [--socket PATH] [--url URL] [--client ID] [--no-start]`. */
export async function bridgeCommand(args: string[], deps: { startHub?: HubLauncher } = {}): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      'data-dir': { type: 'string' },
      config: { type: 'string' },
      socket: { type: 'string' },
      url: { type: 'string' },
      'no-start': { type: 'boolean', default: false },
      client: { type: 'string' },
    },
    strict: true,
  });
  const env = process.env;
  const paths = resolvePaths({ dataDir: values['data-dir'], configFile: values.config, os: { home: homedir(), platform: process.platform, env } });
  const mkdirData = async () => (await import('node:fs/promises')).mkdir(paths.dataDir, { recursive: true, mode: 0o700 });
  // The config the user chose for this bridge (made absolute); else the one this folder's hub runs or ran last (issue 13, item 4).
  const chosenConfig = values.config || env.SPILLWAY_CONFIG ? paths.configFile : undefined;
  // Whether a hub of this folder was ever found: a folder gone since was deleted (Spillway uninstalled while
  // the app still runs this bridge), and no hub may create it again.
  let hadHub = false;
  const hubConfig = async () => chosenConfig ?? (await readHubRecord(paths.dataDir))?.configFile;
  const timeoutMs = Number(env.SPILLWAY_BRIDGE_TIMEOUT_MS) || undefined;
  const bridge = new Bridge({
    ...(timeoutMs ? { timeoutMs } : {}),
    input: process.stdin,
    output: process.stdout,
    log: (l) => process.stderr.write(`${l}\n`),
    client: values.client,
    socketPath: values.socket ?? socketPathFor({ dataDir: paths.dataDir, platform: process.platform, uid: process.getuid?.() }),
    tokenFromEnv: Boolean(env.SPILLWAY_TOKEN),
    token: async () =>
      env.SPILLWAY_TOKEN ||
      (await readFile(paths.tokenFile, 'utf8').then(
        (t) => t.trim(),
        () => undefined,
      )),
    hubId: async () => {
      const id = await readHubId(paths.dataDir);
      hadHub ||= id !== undefined;
      return id;
    },
    httpUrls: async () => {
      if (values.url) return [values.url];
      // Where the folder's hub says it listens, then the port of its config file: each is checked to be that hub.
      const record = await readHubRecord(paths.dataDir);
      const port = await configuredPort((await hubConfig()) ?? paths.configFile);
      const urls = [record?.state === 'running' ? record.url : undefined, port ? `http://127.0.0.1:${port}/mcp` : undefined];
      return [...new Set(urls.filter((u): u is string => u !== undefined))];
    },
    startHub: values['no-start']
      ? undefined
      : (deps.startHub ??
        (async () => {
          const refusal = startRefusal({
            dataDir: paths.dataDir,
            explicit: values['data-dir'] !== undefined,
            exists: existsSync(paths.dataDir),
            hadHub,
          });
          if (refusal) throw new Error(refusal);
          await mkdirData();
          return hubLauncher({ dataDir: paths.dataDir, execPath: process.execPath, script: process.argv[1], env, configFile: hubConfig })();
        })),
  });
  const code = await bridge.run();
  // Whatever the SDK's HTTP transport or a half-closed pipe still holds must not keep a finished bridge alive.
  setTimeout(() => process.exit(code), 2000).unref();
  return code;
}

/**
 * Why the bridge starts no hub in its data folder, or undefined. A folder whose hub ran was deleted since
 * (Spillway uninstalled while the app still runs this bridge); a folder named by `--data-dir` (as every
 * entry Spillway writes names it, the folder existing then) that is missing was moved or deleted: a hub
 * started there would be a new, empty Spillway the app then uses without a word. The default folder, named
 * by nothing, is made on first use.
 */
export function startRefusal(o: { dataDir: string; explicit: boolean; exists: boolean; hadHub: boolean }): string | undefined {
  if (o.exists) return undefined;
  if (o.hadHub) {
    return `its data folder ${o.dataDir} was deleted, so no new Spillway is started there. If you still use Spillway, start the app (or \`spillway serve\`), then restart this app.`;
  }
  if (!o.explicit) return undefined;
  return (
    `its data folder ${o.dataDir} does not exist (moved or deleted?), so no new, empty Spillway is started there. If you moved ` +
    "Spillway's data folder, connect this app again in Spillway (Clients → Connect, or `spillway clients connect <app>`), so it uses the " +
    'new folder; then restart this app.'
  );
}

/** The port in the config file, or the default; undefined for 0 (a port picked at each start cannot be guessed). */
async function configuredPort(configFile: string): Promise<number | undefined> {
  const { defaultConfig } = await import('../../../shared/config.js');
  let port: unknown;
  try {
    port = (JSON.parse(await readFile(configFile, 'utf8')) as { settings?: { port?: unknown } }).settings?.port;
  } catch {
    /* no config yet: the default */
  }
  if (port === 0) return undefined;
  return typeof port === 'number' ? port : defaultConfig().settings.port;
}
