/**
 * `spillway clients list | connect <id> | disconnect <id> | import <id> [names…] | restore <id>`.
 * Talks to the data folder's running hub when one answers — wherever it listens, found through the
 * address it records in the folder — so a new entry carries that hub's port and a token it accepts at
 * once; otherwise works on the files directly. Every write is shown first and needs a yes (or --yes).
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { CLIENT_IDS, deletedNote, type ClientIdName } from '../../shared/api-clients.js';
import { ConfigError, uniqueServerId, type Config, type ServerConfig } from '../../shared/config.js';
import type { ApiResult } from '../../shared/api.js';
import { bridgeWithConfig, defaultBridgeLaunch } from '../core/app/app-hub.js';
import { resolvePaths, type AppPaths } from '../core/files/app-paths.js';
import { ClientTokens } from '../core/clients/client-tokens.js';
import { createClientRegistry } from '../core/clients/index.js';
import { ClientsService } from '../core/clients/clients-service.js';
import { hubEndpoint } from '../core/clients/entry-owner.js';
import { ConfigFile } from '../core/files/config-file.js';
import { maskConfigSecrets } from '../core/secrets/mask-config-secrets.js';
import { clientsHandlers } from '../core/control/clients-handlers.js';
import { ControlDispatcher } from '../core/control/control-handlers.js';
import { findRunningHub } from '../core/control/running-hub.js';
import { SecretChanges } from '../core/control/secret-changes.js';
import { openSecretStore } from '../core/secrets/open-secret-store.js';
import { resolveServerSecrets, storeServerSecrets } from '../core/secrets/server-secret-refs.js';
import type { SecretStore } from '../core/secrets/secret-store.js';
import { join } from 'node:path';
import { pathProblem } from './plain-errors.js';
import { usage } from './usage.js';

type Call = (method: string, req: unknown) => Promise<ApiResult<unknown>>;

const USAGE = usage('clients');

/**
 * This data folder's running hub: where it recorded it listens, else on the configured port. The token is
 * only read: a folder without one (never run, or a mistyped --data-dir) has no hub, and gets no token here.
 */
async function hubApi(paths: AppPaths, config: Config): Promise<Call | undefined> {
  const token = await readFile(paths.tokenFile, 'utf8').then(
    (text) => text.trim(),
    (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return '';
      throw err;
    },
  );
  if (!token) return undefined;
  return findRunningHub({
    dataDir: paths.dataDir,
    token,
    fallbackOrigins: config.settings.port ? [`http://127.0.0.1:${config.settings.port}`] : [],
  });
}

/**
 * No hub running: the same service over the files. An imported server's env and header values go to the
 * secret store as the hub's control API keeps them (config.json holds "<secret>" in their place); the store
 * is opened on first need, so `list` opens nothing.
 */
async function directApi(paths: AppPaths, configFile: ConfigFile, config: Config): Promise<Call> {
  let current = config;
  let store: Promise<SecretStore> | undefined;
  const secrets = () => (store ??= openSecretStore({ dataDir: paths.dataDir }));
  const platform = process.platform === 'darwin' || process.platform === 'win32' ? process.platform : 'linux';
  const service = new ClientsService({
    registry: createClientRegistry({ os: { home: homedir(), platform, env: { ...process.env } }, backupDir: paths.backupDir }),
    tokens: await ClientTokens.open(join(paths.dataDir, 'client-tokens.json')),
    bridge: bridgeWithConfig(defaultBridgeLaunch(paths.dataDir), paths),
    dataDir: paths.dataDir,
    platform: process.platform,
    host: {
      // No hub runs: the entry gets the port the hub will listen on when it starts.
      endpoint: () => hubEndpoint(current.settings.port, current.settings.port),
      upstreamConfigs: () => current.servers,
      addUpstream: async ({ name, config: cfg }) => {
        current = await configFile.load();
        const id = uniqueServerId(name, Object.keys(current.servers));
        const { ServerConfigSchema } = await import('../../shared/config.js');
        const changes = new SecretChanges(await secrets());
        try {
          const { config: saved } = await storeServerSecrets(changes, id, ServerConfigSchema.parse(cfg));
          const next = { ...current, servers: { ...current.servers, [id]: saved } };
          await configFile.save(next);
          current = next;
        } catch (err) {
          // Nothing half-saved: a refused save leaves the store as it was (hub-control.ts does the same).
          await changes.undo().catch(() => undefined);
          throw err;
        }
        return { id };
      },
      lastSeen: () => undefined,
      // Servers are told apart by their values, as the hub does: an imported one is not imported twice.
      resolveSecrets: async (id: string, cfg: ServerConfig) => resolveServerSecrets(await secrets(), id, cfg),
    },
  });
  const dispatcher = new ControlDispatcher(clientsHandlers(async () => service));
  return (method, req) => dispatcher.dispatch(method, req);
}

/**
 * Whether an import moved the app's own servers into Spillway (`import --replace`, not undone since):
 * removing Spillway's entry then leaves the app none of them, and only restore gives them back.
 */
async function serversMovedIn(paths: AppPaths, id: ClientIdName): Promise<boolean> {
  const platform = process.platform === 'darwin' || process.platform === 'win32' ? process.platform : 'linux';
  const registry = createClientRegistry({ os: { home: homedir(), platform, env: { ...process.env } }, backupDir: paths.backupDir });
  return (await registry.backups(id)).some((b) => b.reason === 'replace' && !b.undone);
}

/** The app's name as the window shows it ("Cursor" for `cursor`). */
function appName(paths: AppPaths, id: ClientIdName): string {
  const platform = process.platform === 'darwin' || process.platform === 'win32' ? process.platform : 'linux';
  return createClientRegistry({ os: { home: homedir(), platform, env: { ...process.env } }, backupDir: paths.backupDir }).definition(id).displayName;
}

async function confirm(question: string, yes: boolean): Promise<boolean> {
  if (yes) return true;
  if (!process.stdin.isTTY) {
    console.error('spillway: not a terminal, so nothing was changed: add --yes to confirm.');
    return false;
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  const answer = await rl.question(`${question} [y/N] `);
  rl.close();
  return /^y(es)?$/i.test(answer.trim());
}

/** Every file a change wrote: `files` when it wrote several (Cline keeps its servers in two), else `file`. */
function everyFile(r: { file: string; files?: string[] }): string {
  return r.files && r.files.length > 1 ? r.files.join(', ') : r.file;
}

function unwrap<T>(r: ApiResult<unknown>): T {
  if (!r.ok) throw new Error(r.message);
  return r.value as T;
}

export async function clientsCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      yes: { type: 'boolean', default: false },
      replace: { type: 'boolean', default: false },
      'data-dir': { type: 'string' },
      config: { type: 'string' },
    },
    strict: true,
  });
  const [verb, id, ...names] = positionals;
  if (!verb) {
    console.error(USAGE);
    return 2;
  }
  if (verb !== 'list' && !CLIENT_IDS.includes(id as ClientIdName)) {
    console.error(`spillway: ${id ? `unknown client "${id}"` : 'a client id is needed'}\n${USAGE}`);
    return 2;
  }
  const paths = resolvePaths({
    dataDir: values['data-dir'],
    configFile: values.config,
    os: { home: homedir(), platform: process.platform, env: process.env },
  });
  const yes = values.yes ?? false;
  try {
    const configFile = new ConfigFile(paths.configFile, { maskSecrets: maskConfigSecrets });
    const config = await configFile.load();
    const call = (await hubApi(paths, config)) ?? (await directApi(paths, configFile, config));
    switch (verb) {
      case 'list': {
        const list = unwrap<
          { id: string; displayName: string; state: string; installed: boolean; kind: string; configPath: string; servers: number; error?: string }[]
        >(await call('clients.list', {}));
        for (const c of list) {
          const state = c.error
            ? `error: ${c.error}`
            : !c.installed && c.state === 'absent'
              ? 'not installed'
              : c.state === 'absent'
                ? 'not connected'
                : c.state === 'current'
                  ? 'connected'
                  : c.state;
          console.log(
            `${c.id.padEnd(15)} ${c.displayName.padEnd(16)} ${state.padEnd(14)} ${String(c.servers).padStart(2)} other servers  ${c.configPath}`,
          );
        }
        return 0;
      }
      case 'connect':
      case 'disconnect': {
        if (verb === 'connect') {
          const p = unwrap<{ file: string; action: string; entryText: string; notes: string[] }>(await call('clients.preview', { id }));
          if (p.action === 'none') {
            console.log(`${id} is already connected (${p.file}).`);
            return 0;
          }
          console.log(`Spillway will ${p.action} this entry in ${p.file}:\n\n${p.entryText}\n`);
          for (const n of p.notes) console.log(`- ${n}`);
          if (!(await confirm('Write it?', yes))) return 1;
        } else {
          if (await serversMovedIn(paths, id as ClientIdName)) {
            console.log(
              `Note: ${id}'s own servers were moved into Spillway (clients import --replace), so without Spillway's entry ${id} has none of them. ` +
                `To get them back in its file, use \`spillway clients restore ${id}\` rather than disconnect: each run undoes Spillway's latest change (after a disconnect, run it twice).`,
            );
          }
          // Warnings as Connect gives them (Codex: a servers table written inline means the whole file is written anew).
          const p = unwrap<{ notes?: string[] }>(await call('clients.previewDisconnect', { id }));
          for (const n of p.notes ?? []) console.log(`- ${n}`);
          if (!(await confirm(`Remove Spillway's entry from ${id}'s config?`, yes))) return 1;
        }
        const r = unwrap<{ file: string; files?: string[]; changed: boolean; backup?: string; deleted?: string[]; restartHint?: string }>(
          await call(`clients.${verb}`, { id }),
        );
        // A file Disconnect deleted (Spillway had created it) is said so, not as "Disconnected: <file>".
        const deleted = r.changed ? deletedNote(appName(paths, id as ClientIdName), r) : undefined;
        console.log(
          deleted
            ? `${deleted}${r.backup ? ` Backup: ${r.backup}.` : ''}`
            : r.changed
              ? `${verb === 'connect' ? 'Connected' : 'Disconnected'}: ${everyFile(r)}${r.backup ? ` (backup ${r.backup})` : ''}`
              : `Nothing to change in ${r.file}.`,
        );
        if (r.restartHint) console.log(r.restartHint);
        return 0;
      }
      case 'import': {
        const candidates = unwrap<{ name: string; alreadyImported: boolean; clientOnly?: string }[]>(await call('clients.importCandidates', { id }));
        // A server that uses the app's own variables stays in the app: said, and left out of the default choice.
        if (names.length === 0) for (const c of candidates.filter((x) => x.clientOnly)) console.log(`Left in ${id}: ${c.name} ${c.clientOnly}.`);
        const chosen = names.length > 0 ? names : candidates.filter((c) => !c.alreadyImported && !c.clientOnly).map((c) => c.name);
        if (chosen.length === 0) {
          console.log(`${id} has no servers to import.`);
          return 0;
        }
        const what = `Import ${chosen.join(', ')} from ${id} into Spillway${values.replace ? ` and replace them in ${id}'s file by the one Spillway entry` : ''}?`;
        if (!(await confirm(what, yes))) return 1;
        const r = unwrap<{ imported: string[]; skipped: string[]; change?: { file: string; files?: string[]; restartHint?: string } }>(
          await call('clients.import', { id, names: chosen, replace: values.replace }),
        );
        console.log(`Imported: ${r.imported.join(', ') || 'none'}${r.skipped.length ? `; already there: ${r.skipped.join(', ')}` : ''}`);
        if (r.change) console.log(`Updated ${everyFile(r.change)}.${r.change.restartHint ? ` ${r.change.restartHint}` : ''}`);
        return 0;
      }
      case 'restore': {
        if (!(await confirm(`Undo Spillway's last change to ${id}'s config?`, yes))) return 1;
        const r = unwrap<{ file: string; files?: string[]; deleted: boolean; changedSinceWrite: boolean; restartHint: string }>(
          await call('clients.restore', { id }),
        );
        // `deleted` is about `file`; the other files of the same change were given back their bytes.
        const others = (r.files ?? []).filter((f) => f !== r.file);
        console.log(
          r.deleted
            ? `Removed ${r.file} (it did not exist before).${others.length ? ` Restored ${others.join(', ')}.` : ''}`
            : r.changedSinceWrite
              ? `Undid Spillway's last change in ${everyFile(r)}; what changed in ${r.files && r.files.length > 1 ? 'them' : 'it'} since was kept.`
              : `Restored ${everyFile(r)}.`,
        );
        console.log(r.restartHint);
        return 0;
      }
      default:
        console.error(`spillway: unknown clients command "${verb}"\n${USAGE}`);
        return 2;
    }
  } catch (err) {
    console.error(`spillway: ${(await pathProblem(err, paths)) ?? (err as Error).message}`);
    if (!(err instanceof ConfigError)) return 1;
    // As `spillway serve` says it: Spillway's own config could not be read, and nothing was written.
    console.error('The file was not changed. Fix it (or move it away) and try again.');
    return 2;
  }
}
