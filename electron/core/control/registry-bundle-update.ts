/**
 * `registry.installed` and `registry.update` for an upstream that runs an MCPB bundle from the data
 * folder (issue 16), as they are for npm packages: the registry entry's latest version says whether
 * there is a newer bundle; Update installs it, switches the upstream over and removes the old folder
 * when no other server still runs it.
 */
import { existsSync } from 'node:fs';
import { SECRET_REF, type ServerConfig } from '../../../shared/config.js';
import type { BundleInstaller, BundleRefOf } from '../registry/mcpb/bundle-installer.js';
import { BundleRefusal, publishedBundle, switchBundle } from '../registry/mcpb/bundle-upstream.js';
import { BundleError } from '../registry/mcpb/mcpb-bundle.js';
import { RegistryError } from '../registry/registry-client.js';
import type { RegistryCatalog } from '../registry/registry-catalog.js';
import { isUpdate } from '../registry/version-order.js';
import { ControlError } from './control-error.js';
import { changedMeanwhile, failedBefore, failedNotice, switchWatched, type StartWatch } from './registry-update.js';

export interface BundleUpdateDeps {
  catalog(): RegistryCatalog;
  /** Switches the upstream over, from its config as saved when the change runs (what changed during the download stays). */
  updateUpstream?(req: { id: string; change(current: ServerConfig): Promise<ServerConfig> }): Promise<{ id: string }>;
  /** The upstreams' configs as saved: the old folder is removed only when none of them runs it. */
  upstreamConfigs?(): Record<string, ServerConfig>;
  secrets?: { getEnv?(serverId: string, key: string): Promise<string | undefined> };
  /** Waits until the switched server is ready or has failed (registry-update.ts). */
  startOutcome?: StartWatch;
}

/** The upstream's bundle as installedKind found it, and its installer. */
export interface UpstreamBundle {
  ref: BundleRefOf;
  bundles: BundleInstaller;
}

type StoredEnv = BundleUpdateDeps['secrets'];

/**
 * Every env value is kept in the secret store, config.json holding a reference: the ones that hold a
 * path into the old folder (`${__dirname}/…`) are read back so the switch rewrites them too.
 */
async function storedPaths(secrets: StoredEnv, id: string, config: ServerConfig, dir: string): Promise<ServerConfig> {
  const getEnv = secrets?.getEnv;
  if (config.type !== 'stdio' || !getEnv) return config;
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(config.env)) {
    const stored = value === SECRET_REF ? await getEnv(id, key) : undefined;
    env[key] = stored?.includes(dir) ? stored : value;
  }
  return { ...config, env };
}

/** How a bundle server goes back to its previous install `folder` at the hub's start (StartCheck.backOf). */
export async function bundleBackOf(deps: { bundles: BundleInstaller; secrets: StoredEnv }, id: string, config: ServerConfig, folder: string) {
  const { bundles } = deps;
  const to = bundles.bundleOf(config);
  const from = bundles.refOfFolder(folder);
  if (!to || !from || from.name !== to.name || !existsSync(folder)) return undefined;
  const [fromBundle, toBundle] = await Promise.all([bundles.installed(from.dir), bundles.installed(to.dir)]);
  const back = async (current: ServerConfig) => {
    if (bundles.bundleOf(current)?.dir !== to.dir) throw changedMeanwhile(id, to);
    return switchBundle(await storedPaths(deps.secrets, id, current, to.dir), { ref: to, bundle: toBundle }, fromBundle);
  };
  return { id, name: to.name, from: { version: from.version, folder }, to: { version: to.version, folder: to.dir }, back };
}

export function bundleUpdateHandlers(deps: BundleUpdateDeps) {
  /** The registry's latest version of the entry and its bundle (or why there is none). */
  const latest = async (name: string) => {
    const { response } = await deps.catalog().get(name);
    const published = publishedBundle(response.server);
    if (!published)
      throw new BundleError(`The registry's latest version of ${name} (${response.server.version}) offers no bundle with its checksum.`);
    return published;
  };
  return {
    async installed(id: string, { ref, bundles }: UpstreamBundle) {
      try {
        const { version } = await latest(ref.name);
        const shown = { name: ref.name, version: ref.version, latest: version };
        if (!isUpdate(version, ref.version)) return { ...shown, updateAvailable: false };
        // A version that did not start for this server is not offered again (a newer one is).
        if (await failedBefore(bundles, id, ref.name, version)) return { ...shown, updateAvailable: false, notice: failedNotice(version) };
        return { ...shown, updateAvailable: true };
      } catch (err) {
        return { name: ref.name, version: ref.version, updateAvailable: false, notice: err instanceof Error ? err.message : String(err) };
      }
    },

    async update(id: string, { ref, bundles }: UpstreamBundle) {
      if (!deps.updateUpstream) throw new ControlError('unavailable', 'This hub cannot update servers');
      let next;
      try {
        const published = await latest(ref.name);
        if (!isUpdate(published.version, ref.version) || (await failedBefore(bundles, id, ref.name, published.version)))
          return { id, name: ref.name, version: ref.version, previous: ref.version, updated: false };
        const installed = await bundles.install({
          name: ref.name,
          version: published.version,
          url: published.pkg.identifier,
          sha256: published.pkg.fileSha256,
        });
        next = { installed, version: published.version };
      } catch (err) {
        if (err instanceof BundleError || err instanceof RegistryError) throw new ControlError('unavailable', err.message);
        throw err;
      }
      const updateUpstream = deps.updateUpstream;
      try {
        const from = { ref, bundle: await bundles.installed(ref.dir) };
        const to = { name: ref.name, version: next.version, dir: next.installed.dir };
        // The old version stays as the server's previous install (the next start keeps it); one that does
        // not start is switched back from the new.
        await switchWatched({
          id,
          name: ref.name,
          from: { version: ref.version, folder: ref.dir },
          to: { version: next.version, folder: next.installed.dir },
          installs: bundles,
          updateUpstream,
          forward: async (current) => {
            if (bundles.bundleOf(current)?.dir !== ref.dir) throw changedMeanwhile(id, ref);
            return switchBundle(await storedPaths(deps.secrets, id, current, ref.dir), from, next.installed);
          },
          back: async (current) => {
            if (bundles.bundleOf(current)?.dir !== to.dir) throw changedMeanwhile(id, to);
            return switchBundle(await storedPaths(deps.secrets, id, current, to.dir), { ref: to, bundle: next.installed }, from.bundle);
          },
          startOutcome: deps.startOutcome,
          upstreamConfigs: deps.upstreamConfigs,
        });
      } catch (err) {
        // Not switched over (refused, or the save was): a version installed just now goes again.
        if (next.installed.fresh) await bundles.removeIfUnused(next.installed.dir, Object.values(deps.upstreamConfigs?.() ?? {}));
        if (err instanceof BundleRefusal || err instanceof BundleError) throw new ControlError('invalid', err.message, 'id');
        throw err;
      }
      return { id, name: ref.name, version: next.version, previous: ref.version, updated: true };
    },
  };
}
