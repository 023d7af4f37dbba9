/**
 * The `registry.*` methods of the control contract (issue 16): search the MCP Registry, an entry's detail
 * page, the form for one of its packages or remotes, and adding it as an upstream through the same path
 * `upstreams.add` takes.
 */
import { ZodError } from 'zod';
import type { RegistryOption } from '../../../shared/api-registry.js';
import { describeZodError, type ServerConfig, type Settings } from '../../../shared/config.js';
import { join } from 'node:path';
import { entryOptions, optionLabel, packageCommand, planOption, type EntryOption } from '../registry/launch-plan.js';
import { RegistryError } from '../registry/registry-client.js';
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
}

export interface RegistryHandlerDeps {
  /** The catalog for the registry URL of the settings as they are now. */
  catalog(): RegistryCatalog;
  /** The PATH servers are started with, to check a package's runtime. */
  pathFacts(): PathFacts;
  /** The control operation behind `upstreams.add`. */
  addUpstream(req: { id?: string; name?: string; config: ServerConfig }): Promise<{ id: string }>;
  secrets?: RegistrySecretStore;
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

function describeOption(option: EntryOption, facts: PathFacts): RegistryOption {
  const base = { kind: option.kind, index: option.index, label: optionLabel(option) };
  const how = option.kind === 'package' ? packageCommand(option.pkg) : undefined;
  if (how && 'reason' in how) return { ...base, summary: how.reason, supported: false, reason: how.reason };
  const runtime = how ? checkRuntime(how.command, facts) : undefined;
  return { ...base, summary: planOption(option, { kind: 'preview' }).summary, supported: true, ...(runtime ? { runtime } : {}) };
}

/** A short server name for its id: the title, else the part of the name after the slash. */
const idName = (server: ServerDetail) => server.title ?? server.name.split('/').pop() ?? server.name;

export function registryHandlers(deps: RegistryHandlerDeps): HandlerMap {
  const load = (name: string, version?: string) => registryCall(() => deps.catalog().get(name, version));
  return {
    'registry.search': (req) => registryCall(() => deps.catalog().search(req.query, req.cursor)),
    'registry.get': async (req) => {
      const { response, cached } = await load(req.name, req.version);
      const facts = deps.pathFacts();
      return {
        server: serverSummary(response),
        options: entryOptions(response.server).map((o) => describeOption(o, facts)),
        ...(cached ? { cached } : {}),
      };
    },
    'registry.form': async (req) => {
      const { response } = await load(req.name, req.version);
      const option = pickOption(response.server, req);
      const described = describeOption(option, deps.pathFacts());
      if (!described.supported) throw new ControlError('invalid', described.reason ?? 'Spillway cannot run this yet', option.kind);
      return { option: described, fields: planOption(option, { kind: 'preview' }).inputs.fields };
    },
    'registry.add': async (req) => {
      const { response } = await load(req.name, req.version);
      const server = response.server;
      const option = pickOption(server, req);
      const described = describeOption(option, deps.pathFacts());
      if (!described.supported) throw new ControlError('invalid', described.reason ?? 'Spillway cannot run this yet', option.kind);
      if (described.runtime && !described.runtime.present)
        throw new ControlError('unavailable', described.runtime.missing ?? 'A runtime is missing', option.kind);
      const plan = planOption(option, { kind: 'values', values: req.values });
      const problem = plan.inputs.problems[0];
      if (problem) throw new ControlError('invalid', problem.message, `values.${problem.key}`);
      let upstream;
      try {
        upstream = registryUpstream(plan.launch, plan.inputs.secretValues, req.label ?? server.title ?? server.name);
      } catch (err) {
        if (err instanceof ZodError)
          throw new ControlError('invalid', `The filled form does not make a usable server: ${describeZodError(err).message}`, 'values');
        throw err;
      }
      const secret = hasSecrets(upstream);
      const store = secret ? deps.secrets : undefined;
      // With the values, so that the server starts with them; upstreams.add moves them into the store.
      const { id } = await deps.addUpstream({ id: req.id, name: idName(server), config: withSecrets(upstream) });
      if (store) await store.put(id, upstream.secrets);
      return { id, summary: plan.summary, secrets: !secret ? 'none' : store ? 'secret-store' : 'config' };
    },
  };
}

/** The registry's view of a hub's secret store: each value under the name upstreams.add gives it. */
export function registrySecretStore(store: SecretStore): RegistrySecretStore {
  return {
    put: async (serverId, secrets) => {
      for (const [key, value] of Object.entries(secrets.env)) await store.set(serverId, secretName('env', key), value);
      for (const [key, value] of Object.entries(secrets.headers)) await store.set(serverId, secretName('header', key), value);
    },
  };
}

/** What the app's hub gives the registry methods (app/app-hub.ts). */
export interface AppRegistryOptions {
  paths: { dataDir: string };
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  settings(): Settings;
  addUpstream: RegistryHandlerDeps['addUpstream'];
  secrets?: RegistrySecretStore;
}

/** The registry methods of an app hub: the registry URL from the settings, the cache in the data folder. */
export function appRegistryHandlers(options: AppRegistryOptions): HandlerMap {
  let catalog: RegistryCatalog | undefined;
  const pathKey = Object.keys(options.env).find((k) => k.toUpperCase() === 'PATH') ?? 'PATH';
  return registryHandlers({
    catalog: () =>
      (catalog ??= new RegistryCatalog({ baseUrl: () => options.settings().registryUrl, cacheDir: join(options.paths.dataDir, 'registry-cache') })),
    pathFacts: () => ({ path: options.env[pathKey], platform: options.platform, pathExt: options.env.PATHEXT }),
    addUpstream: options.addUpstream,
    secrets: options.secrets,
  });
}
