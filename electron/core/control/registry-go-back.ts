/**
 * `registry.goBack`: the user's own way back from an Update that started but behaves worse. The server is
 * switched to the install it ran before its last Update (kept in the data folder, the installs folder's
 * `previous` record), as the automatic switch back does (registry-update.ts goBack): only the install it
 * runs changes; its settings, secrets and policies are kept. Nothing is further back, so the record of the
 * previous install goes; the version gone back from is not barred (the user chose), and is offered as an
 * Update again.
 * `registry.installed` says which version going back leads to (`previous`).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerConfig } from '../../../shared/config.js';
import type { InstallsFolder } from '../registry/install/installs-folder.js';
import { packageOfFile } from '../registry/install/package-folders.js';
import type { BundleRefOf } from '../registry/mcpb/bundle-installer.js';
import { ControlError } from './control-error.js';
import type { HandlerMap } from './control-handlers.js';
import { installedKind, savedConfig, type InstalledKind, type Installers } from './installed-kind.js';
import { bundleBackOf } from './registry-bundle-update.js';
import { npmBackOf, type SwitchBack } from './registry-update.js';

/** What going back needs of the registry methods' deps (RegistryHandlerDeps). */
export interface GoBackDeps extends Installers {
  secrets?: { getEnv?(serverId: string, key: string): Promise<string | undefined> };
  upstreamConfigs?(): Record<string, ServerConfig>;
  updateUpstream?: SwitchBack['updateUpstream'];
}

/** An install: the package or bundle, its version and its folder. */
interface Install {
  name: string;
  version: string;
  folder: string;
}

/** How to read and switch the kind of install a server runs (installedKind: npm package or bundle). */
interface Kind {
  installs: InstallsFolder;
  /** The install a config runs, when it runs one of this kind. */
  runs(config: ServerConfig): Install | undefined;
  /** The install in `folder`, when it is one of this kind. */
  at(folder: string): Install | undefined;
  backOf(id: string, config: ServerConfig, folder: string): Promise<Omit<SwitchBack, 'installs' | 'updateUpstream'> | undefined>;
}

/** How the install a server runs (installedKind) is read and switched. */
function kindOf(deps: GoBackDeps, installed: InstalledKind): Kind {
  if (installed.kind === 'bundle') {
    const { bundles } = installed;
    const install = (ref: BundleRefOf | undefined) => ref && { name: ref.name, version: ref.version, folder: ref.dir };
    return {
      installs: bundles,
      runs: (config) => install(bundles.bundleOf(config)),
      at: (folder) => install(bundles.refOfFolder(folder)),
      backOf: (id, config, folder) => bundleBackOf({ bundles, secrets: deps.secrets }, id, config, folder),
    };
  }
  const { npm } = installed;
  return {
    installs: npm,
    runs: (config) => npm.packageOf(config),
    at: (folder) => {
      const ref = packageOfFile(npm.dir, join(folder, 'package.json'));
      return ref?.folder === folder ? ref : undefined;
    },
    backOf: (id, config, folder) => npmBackOf(npm, id, config, folder),
  };
}

/** What server `id` runs, and the install kept from before its last Update (or why it cannot go back). */
type Found = { kind: Kind; config: ServerConfig; current: Install; previous: Install } | { kind: Kind; current: Install; refusal: ControlError };

async function find(deps: GoBackDeps, id: string): Promise<Found> {
  const config = savedConfig(deps, id);
  const installed = installedKind(deps, config);
  const kind = installed && kindOf(deps, installed);
  const current = kind?.runs(config);
  if (!kind || !current)
    throw new ControlError(
      'invalid',
      `"${id}" does not run an npm package or bundle that Spillway installed, so there is no earlier version to go back to.`,
      'id',
    );
  const folder = (await kind.installs.previous.read())[id];
  const previous = folder && existsSync(folder) ? kind.at(folder) : undefined;
  if (!previous || previous.folder === current.folder) return { kind, current, refusal: nothingKept(id, current) };
  // Another package or bundle than the one the Update switched: the user changed the server since.
  if (previous.name !== current.name) return { kind, current, refusal: editedSince(id, current, previous.version) };
  return { kind, config, current, previous };
}

const nothingKept = (id: string, current: Install) =>
  new ControlError(
    'invalid',
    `"${id}" has no earlier version of ${current.name} kept to go back to (only the one it ran before its last Update is kept, and going back uses it). To run another version, remove the server and add it again, choosing that version in the Version list.`,
    'id',
  );

const editedSince = (id: string, current: Install, version: string) =>
  new ControlError(
    'conflict',
    `"${id}" was changed since its last Update and now runs ${current.name} ${current.version}, so Spillway does not switch it back to ${version}. To run ${version}, remove the server and add it again, choosing that version in the Version list.`,
    'id',
  );

/** Switches server `id` back to its previous install; the versions it runs now and went back from. */
async function goBack(deps: GoBackDeps, id: string) {
  const updateUpstream = deps.updateUpstream;
  if (!updateUpstream) throw new ControlError('unavailable', 'This hub cannot update servers');
  const found = await find(deps, id);
  const { installs } = found.kind;
  if (installs.updating.has(id))
    throw new ControlError('conflict', `"${id}" is being updated: wait for that update to finish, then go back if you still want to.`, 'id');
  if ('refusal' in found) throw found.refusal;
  // One switch of a server at a time: an Update started now waits its turn (switchWatched refuses it).
  installs.updating.add(id);
  try {
    const plan = await found.kind.backOf(id, found.config, found.previous.folder);
    if (!plan) throw nothingKept(id, found.current);
    // Going back settles an Update not yet seen starting: the next start does not watch it.
    const unconfirmed = (await installs.unconfirmed.read())[id];
    await installs.unconfirmed.set(id, undefined);
    try {
      await updateUpstream({
        id,
        change: (current) => {
          if (found.kind.runs(current)?.folder !== plan.to.folder)
            throw editedSince(id, found.kind.runs(current) ?? found.current, plan.from.version);
          return plan.back(current);
        },
      });
    } catch (err) {
      await installs.unconfirmed.set(id, unconfirmed).catch(() => undefined);
      throw err;
    }
    // Nothing is further back; the newer version goes when no other server runs it (an Update installs it again).
    await installs.previous.set(id, undefined).catch(() => undefined);
    await installs.removeIfUnused(plan.to.folder, Object.values(deps.upstreamConfigs?.() ?? {})).catch(() => false);
    return { id, name: plan.name, version: plan.from.version, previous: plan.to.version };
  } finally {
    installs.updating.delete(id);
  }
}

/** The version server `id` can go back to now, if any (`registry.installed`'s `previous`). */
async function previousVersion(deps: GoBackDeps, id: string): Promise<string | undefined> {
  const found = await find(deps, id).catch(() => undefined);
  return found && 'previous' in found ? found.previous.version : undefined;
}

/** The registry methods with `registry.goBack`, and `registry.installed` saying what going back leads to. */
export function withGoBack(deps: GoBackDeps, handlers: HandlerMap): HandlerMap {
  const installed = handlers['registry.installed'];
  return {
    ...handlers,
    ...(installed && {
      'registry.installed': async (req) => {
        const shown = await installed(req);
        const previous = await previousVersion(deps, req.id);
        return previous ? { ...shown, previous } : shown;
      },
    }),
    'registry.goBack': (req) => goBack(deps, req.id),
  };
}
