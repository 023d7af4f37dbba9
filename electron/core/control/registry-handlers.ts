/**
 * The `registry.*` methods of the control contract (issue 16): search the MCP Registry, an entry's detail
 * page, the form for one of its packages or remotes, and adding it as an upstream through the same path
 * `upstreams.add` takes.
 */
import { ZodError } from 'zod';
import type { RegistryOption } from '../../../shared/api-registry.js';
import { describeZodError, type ServerConfig, type Settings } from '../../../shared/config.js';
import { join } from 'node:path';
import { bundleRefProblem } from '../registry/install/install-names.js';
import { DEFAULT_NPM_REGISTRY, InstallError } from '../registry/install/npm-install.js';
import { NpmInstaller } from '../registry/install/npm-installer.js';
import { removeUnusedAtStart } from '../registry/install/installs-folder.js';
import { repairRuntimeCommands } from '../registry/install/own-runtime.js';
import {
  entryOptions,
  optionLabel,
  packageCommand,
  planOption,
  remoteAddressProblem,
  type EntryOption,
  type NpmMode,
} from '../registry/launch-plan.js';
import { BundleInstaller } from '../registry/mcpb/bundle-installer.js';
import { bundleForm, installPlannedBundle } from './registry-bundle-add.js';
import { bundleBackOf, bundleUpdateHandlers } from './registry-bundle-update.js';
import { withGoBack } from './registry-go-back.js';
import { installedKind, savedConfig } from './installed-kind.js';
import { RegistryError } from '../registry/registry-client.js';
import { isNewerVersion } from '../registry/version-order.js';
import { confirmAtStart, failedBefore, failedNotice, npmBackOf, npmSwitch, switchWatched, type StartWatch } from './registry-update.js';
import { RegistryCatalog, serverSummary } from '../registry/registry-catalog.js';
import { hasSecrets, registryUpstream, withSecrets } from '../registry/registry-upstream.js';
import { checkRuntime, type PathFacts } from '../registry/runtime-check.js';
import type { ServerDetail } from '../registry/server-json.js';
import type { SecretStore } from '../secrets/secret-store.js';
import { secretName } from '../secrets/server-secret-refs.js';
import { ControlError } from './control-error.js';
import type { HandlerMap } from './control-handlers.js';

/**
 * Where a registry entry's secret values go (the hub's secret store, issue 15). They also reach
 * `addUpstream` with the config, which with a store keeps only references in config.json.
 */
export interface RegistrySecretStore {
  put(serverId: string, secrets: { env: Record<string, string>; headers: Record<string, string> }): Promise<void>;
  /** One stored env value (an updated bundle's paths are rewritten, and config.json holds only a reference). */
  getEnv?(serverId: string, key: string): Promise<string | undefined>;
}

export interface RegistryHandlerDeps {
  /** The catalog for the registry URL of the settings as they are now. */
  catalog(): RegistryCatalog;
  /** The PATH servers are started with, to check a package's runtime. */
  pathFacts(): PathFacts | Promise<PathFacts>;
  /** The control operation behind `upstreams.add`. */
  addUpstream(req: { id?: string; name?: string; config: ServerConfig }): Promise<{ id: string }>;
  secrets?: RegistrySecretStore;
  /**
   * Installs npm packages into the data folder. With it, every npm package added from the catalog is
   * installed and run with the app's own runtime, even where npx is on the PATH: the same pinned version
   * runs at every start (npx may fetch again, or find another), nothing depends on a Node.js the user
   * may not have or may change, and it keeps working offline once installed. Without it (tests of the
   * plan only), npm packages run with npx.
   */
  npm?: NpmInstaller;
  /** Installs MCPB bundles into the data folder (run with the app's own runtime); without it bundles are refused. */
  bundles?: BundleInstaller;
  /** The upstreams' configs as saved (for `registry.update`, and what the detail page says is added). */
  upstreamConfigs?(): Record<string, ServerConfig>;
  /**
   * The control operation behind `upstreams.update`, given how to make the new config from the one saved
   * when the change runs: an update downloads first, and what was changed meanwhile must be kept.
   */
  updateUpstream?(req: { id: string; change(current: ServerConfig): ServerConfig | Promise<ServerConfig> }): Promise<{ id: string }>;
  /**
   * Waits until a server switched over by an Update is ready or has failed (the hub's status events,
   * serverStartOutcome): one that fails goes back to the version it ran. Without it, an Update is not checked.
   */
  startOutcome?: StartWatch;
}

/** A registry failure as the control API reports it (its message already says what to do next). */
function controlError(err: unknown): unknown {
  if (!(err instanceof RegistryError)) return err;
  return new ControlError(err.kind === 'not_found' ? 'not_found' : 'unavailable', err.message);
}

async function registryCall<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw controlError(err);
  }
}

function pickOption(server: ServerDetail, req: { package?: number; remote?: number }): EntryOption {
  const kind = req.package !== undefined ? 'package' : 'remote';
  const index = req.package ?? req.remote ?? 0;
  const option = entryOptions(server).find((o) => o.kind === kind && o.index === index);
  if (!option) throw new ControlError('not_found', `${server.name} has no ${kind} number ${index + 1}`, kind);
  return option;
}

function describeOption(option: EntryOption, server: ServerDetail, facts: PathFacts, npmMode: NpmMode): RegistryOption {
  const base = { kind: option.kind, index: option.index, label: optionLabel(option) };
  const how = option.kind === 'package' ? packageCommand(option.pkg, npmMode) : undefined;
  if (how && 'reason' in how) return { ...base, summary: how.reason, supported: false, reason: how.reason };
  const insecure = option.kind === 'remote' ? remoteAddressProblem(option.remote.url) : undefined;
  if (insecure) return { ...base, summary: insecure, supported: false, reason: insecure };
  // An installed npm package or bundle runs with the app's own runtime: there is no program to look for.
  const ownRuntime = npmMode === 'install' && option.kind === 'package' && ['npm', 'mcpb'].includes(option.pkg.registryType);
  const runtime = how && !ownRuntime ? checkRuntime(how.command, facts) : undefined;
  const plan = planOption(option, { kind: 'preview' }, npmMode);
  // A bundle is named after its registry entry (its folder, its Update), an npm package after itself.
  const installs = plan.npm
    ? { name: plan.npm.name, ...(plan.npm.version ? { version: plan.npm.version } : {}) }
    : plan.mcpb
      ? { name: server.name, version: plan.mcpb.version ?? server.version }
      : undefined;
  // Its name and version name the bundle's folder: anything but plain ones is refused before a download.
  const refused = plan.mcpb && installs?.version ? bundleRefProblem({ name: installs.name, version: installs.version }) : undefined;
  if (refused) return { ...base, summary: refused, supported: false, reason: refused };
  return {
    ...base,
    summary: plan.summary,
    supported: true,
    ...(runtime ? { runtime } : {}),
    ...(installs ? { installs } : {}),
    ...(plan.mcpb ? { bundle: true } : {}),
  };
}

/** An install failure as the control API reports it: what happened and what to do next. */
function installError(err: unknown): unknown {
  if (!(err instanceof InstallError)) return err;
  return new ControlError(err.kind === 'no_program' || err.kind === 'refused' ? 'invalid' : 'unavailable', err.message);
}

/** A short server name for its id: the title, else the part of the name after the slash. */
const idName = (server: ServerDetail) => server.title ?? server.name.split('/').pop() ?? server.name;

export function registryHandlers(deps: RegistryHandlerDeps): HandlerMap {
  const load = (name: string, version?: string) => registryCall(() => deps.catalog().get(name, version));
  const npmMode: NpmMode = deps.npm ? 'install' : 'npx';
  const describe = async (option: EntryOption, server: ServerDetail) =>
    withInstalled(describeOption(option, server, await deps.pathFacts(), npmMode));
  /** Adds the servers that already run the option's npm package or bundle (the detail page offers their Update). */
  const withInstalled = (described: RegistryOption): RegistryOption => {
    const name = described.installs?.name;
    if (!name || !deps.upstreamConfigs) return described;
    const refOf = (config: ServerConfig) => (described.bundle ? deps.bundles?.bundleOf(config) : deps.npm?.packageOf(config));
    const installed = Object.entries(deps.upstreamConfigs()).flatMap(([id, config]) => {
      const ref = refOf(config);
      return ref?.name === name ? [{ id, version: ref.version }] : [];
    });
    return installed.length ? { ...described, installed } : described;
  };
  /** The bundle or npm package an upstream runs from the data folder, or a plain refusal. */
  const installedOf = (id: string) => {
    const installed = installedKind(deps, savedConfig(deps, id));
    if (!installed)
      throw new ControlError(
        'invalid',
        `"${id}" does not run an npm package or bundle that Spillway installed, so there is nothing to update here.`,
        'id',
      );
    return installed;
  };
  const bundleHandlers = bundleUpdateHandlers({
    catalog: deps.catalog,
    updateUpstream: deps.updateUpstream,
    upstreamConfigs: deps.upstreamConfigs,
    secrets: deps.secrets,
    startOutcome: deps.startOutcome,
  });
  return withGoBack(deps, {
    'registry.search': (req) => registryCall(() => deps.catalog().search(req.query, req.cursor)),
    'registry.get': async (req) => {
      const { response, cached } = await load(req.name, req.version);
      const facts = await deps.pathFacts();
      return {
        server: serverSummary(response),
        options: entryOptions(response.server).map((o) => withInstalled(describeOption(o, response.server, facts, npmMode))),
        ...(cached ? { cached } : {}),
      };
    },
    'registry.versions': (req) => registryCall(() => deps.catalog().versions(req.name)),
    'registry.form': async (req) => {
      const { response } = await load(req.name, req.version);
      const option = pickOption(response.server, req);
      const described = await describe(option, response.server);
      if (!described.supported) throw new ControlError('invalid', described.reason ?? 'Spillway cannot run this yet', option.kind);
      const plan = planOption(option, { kind: 'preview' }, npmMode);
      if (!plan.mcpb) return { option: described, fields: plan.inputs.fields };
      // A bundle's own settings are in its manifest: it is downloaded and installed now, so Add is instant.
      if (!deps.bundles) throw new ControlError('unavailable', 'This hub cannot install MCPB bundles', option.kind);
      const form = await bundleForm(deps.bundles, plan.mcpb, response.server, plan.inputs.secretValues);
      return { option: { ...described, summary: form.summary }, fields: [...plan.inputs.fields, ...form.fields] };
    },
    'registry.add': async (req) => {
      const { response } = await load(req.name, req.version);
      const server = response.server;
      const option = pickOption(server, req);
      const described = await describe(option, server);
      if (!described.supported) throw new ControlError('invalid', described.reason ?? 'Spillway cannot run this yet', option.kind);
      if (described.runtime && !described.runtime.present)
        throw new ControlError('unavailable', described.runtime.missing ?? 'A runtime is missing', option.kind);
      const plan = planOption(option, { kind: 'values', values: req.values }, npmMode);
      const problem = plan.inputs.problems[0];
      if (problem) throw new ControlError('invalid', problem.message, `values.${problem.key}`);
      const label = req.label ?? server.title ?? server.name;
      let upstream;
      try {
        // Checked before anything is downloaded: a form that makes no usable server installs nothing.
        upstream = registryUpstream(plan.launch, plan.inputs.secretValues, label);
      } catch (err) {
        if (err instanceof ZodError)
          throw new ControlError('invalid', `The filled form does not make a usable server: ${describeZodError(err).message}`, 'values');
        throw err;
      }
      let installed;
      if (plan.npm && deps.npm) {
        const { name, version, packageArgs, env } = plan.npm;
        try {
          installed = await deps.npm.install(name, version);
        } catch (err) {
          throw installError(err);
        }
        upstream = registryUpstream(deps.npm.launch(installed, packageArgs, env), plan.inputs.secretValues, label);
      }
      let summary = plan.summary;
      if (plan.mcpb) {
        if (!deps.bundles) throw new ControlError('unavailable', 'This hub cannot install MCPB bundles', option.kind);
        const bundle = await installPlannedBundle(deps.bundles, plan, server, await deps.pathFacts(), req.values);
        installed = bundle.installed;
        summary = bundle.summary;
        upstream = registryUpstream(bundle.launch, bundle.secretValues, label);
      }
      const secret = hasSecrets(upstream);
      const store = secret ? deps.secrets : undefined;
      // With the values, so that the server starts with them; upstreams.add moves them into the store.
      const { id } = await deps.addUpstream({ id: req.id, name: idName(server), config: withSecrets(upstream) });
      // A server added under the id of one removed starts afresh (its Update offers what that one's went back from).
      await Promise.all([deps.npm?.forgetUpdates(id), deps.bundles?.forgetUpdates(id)]);
      if (store) await store.put(id, upstream.secrets);
      return {
        id,
        summary,
        secrets: !secret ? 'none' : store ? 'secret-store' : 'config',
        ...(installed ? { installed: { name: installed.name, version: installed.version } } : {}),
      };
    },
    'registry.installed': async (req) => {
      const installed = installedOf(req.id);
      if (installed.kind === 'bundle') return bundleHandlers.installed(req.id, installed);
      const { ref, npm } = installed;
      try {
        const latest = await npm.latest(ref.name);
        const shown = { name: ref.name, version: ref.version, latest };
        // Only a newer version is an update: a `latest` tag moved back to an older one is not.
        if (!isNewerVersion(latest, ref.version)) return { ...shown, updateAvailable: false };
        if (await failedBefore(npm, req.id, ref.name, latest)) return { ...shown, updateAvailable: false, notice: failedNotice(latest) };
        return { ...shown, updateAvailable: true };
      } catch (err) {
        return { name: ref.name, version: ref.version, updateAvailable: false, notice: err instanceof Error ? err.message : String(err) };
      }
    },
    'registry.update': async (req) => {
      const current = installedOf(req.id);
      if (current.kind === 'bundle') return bundleHandlers.update(req.id, current);
      const { ref, npm } = current;
      const updateUpstream = deps.updateUpstream;
      if (!updateUpstream) throw new ControlError('unavailable', 'This hub cannot update servers');
      let installed;
      try {
        const latest = await npm.latest(ref.name);
        // A version that did not start for this server is not tried again (a newer one is).
        if (!isNewerVersion(latest, ref.version) || (await failedBefore(npm, req.id, ref.name, latest)))
          return { id: req.id, name: ref.name, version: ref.version, previous: ref.version, updated: false };
        installed = await npm.install(ref.name, latest);
      } catch (err) {
        throw installError(err);
      }
      // The old version stays as the previous install.
      await switchWatched({
        id: req.id,
        name: ref.name,
        from: { version: ref.version, folder: ref.folder },
        to: { version: installed.version, folder: installed.folder },
        installs: npm,
        updateUpstream,
        ...npmSwitch(npm, req.id, ref, installed),
        startOutcome: deps.startOutcome,
        upstreamConfigs: deps.upstreamConfigs,
      });
      return { id: req.id, name: ref.name, version: installed.version, previous: ref.version, updated: true };
    },
  });
}

/** The registry's view of a hub's secret store: each value under the name upstreams.add gives it. */
export function registrySecretStore(store: SecretStore): RegistrySecretStore {
  return {
    put: async (serverId, secrets) => {
      for (const [key, value] of Object.entries(secrets.env)) await store.set(serverId, secretName('env', key), value);
      for (const [key, value] of Object.entries(secrets.headers)) await store.set(serverId, secretName('header', key), value);
    },
    getEnv: (serverId, key) => store.get(serverId, secretName('env', key)),
  };
}

/** What the app's hub gives the registry methods (app/app-hub.ts). */
export interface AppRegistryOptions {
  paths: { dataDir: string; configFile: string };
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  /**
   * The PATH servers start with, read again now (the hub's ServerPath): for a GUI launch not the app's
   * own, and what an install since the app started added must count.
   */
  serverPath(): Promise<string | undefined>;
  settings(): Settings;
  addUpstream: RegistryHandlerDeps['addUpstream'];
  secrets?: RegistrySecretStore;
  upstreamConfigs?: RegistryHandlerDeps['upstreamConfigs'];
  updateUpstream?: RegistryHandlerDeps['updateUpstream'];
  /** Watches an updated server start (serverStartOutcome(hub)); without it an Update is not checked. */
  startOutcome?: StartWatch;
  /** Told as an npm package starts installing (the hub logs it; the UI shows it). */
  onInstalling?(ref: { name: string; version?: string }): void;
  /** Told what was removed at start because no server uses it (the hub logs it). */
  onRemovedUnused?(folders: string[]): void;
  /** Told of an update the hub stopped before it was seen starting, checked at this start, that went back (the hub logs it). */
  onNotice?(message: string): void;
}

/** Whether the hub runs the data folder's own config.json: one of another file shares the installs, not seeing all their servers. */
const ownConfig = (options: AppRegistryOptions) => options.paths.configFile === join(options.paths.dataDir, 'config.json');

/** The registry methods of an app hub: the registry URL from the settings, the cache in the data folder. */
export function appRegistryHandlers(options: AppRegistryOptions): HandlerMap {
  let catalog: RegistryCatalog | undefined;
  // Made now, as the hub starts: that is when what an interrupted install left is removed.
  const bundles = new BundleInstaller({ dataDir: options.paths.dataDir, onInstalling: options.onInstalling });
  const npm = new NpmInstaller({
    dataDir: options.paths.dataDir,
    // npm's own variable, so a company mirror set for npm is used here too.
    registry: () => options.env.npm_config_registry || options.env.NPM_CONFIG_REGISTRY || DEFAULT_NPM_REGISTRY,
    onInstalling: options.onInstalling,
  });
  // Only a hub of the data folder's own config.json sees every server that uses the installs.
  if (ownConfig(options) && options.upstreamConfigs) removeUnusedAtStart([bundles, npm], options.upstreamConfigs(), options.onRemovedUnused);
  // Updates the last run stopped before they were seen starting are watched now (registry-update.ts).
  const { upstreamConfigs, updateUpstream, startOutcome, onNotice, secrets } = options;
  if (ownConfig(options) && upstreamConfigs && updateUpstream && startOutcome) {
    const check = { upstreamConfigs, updateUpstream, startOutcome, onNotice };
    void confirmAtStart({ ...check, installs: npm, backOf: (...a) => npmBackOf(npm, ...a) });
    void confirmAtStart({ ...check, installs: bundles, backOf: (...a) => bundleBackOf({ bundles, secrets }, ...a) });
  }
  // Servers saved with a path to the runtime by an earlier version (own-runtime.ts) are saved with its name.
  if (options.upstreamConfigs && options.updateUpstream) {
    const runsInstall = (config: ServerConfig) => Boolean(npm.packageOf(config) ?? bundles.bundleOf(config));
    void repairRuntimeCommands(options.upstreamConfigs(), runsInstall, options.updateUpstream);
  }
  return registryHandlers({
    catalog: () =>
      (catalog ??= new RegistryCatalog({ baseUrl: () => options.settings().registryUrl, cacheDir: join(options.paths.dataDir, 'registry-cache') })),
    pathFacts: async () => ({ path: await options.serverPath(), platform: options.platform, pathExt: options.env.PATHEXT }),
    addUpstream: options.addUpstream,
    secrets: options.secrets,
    bundles,
    npm,
    upstreamConfigs: options.upstreamConfigs,
    updateUpstream: options.updateUpstream,
    startOutcome: options.startOutcome,
  });
}
