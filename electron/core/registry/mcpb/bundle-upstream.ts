/**
 * A registry entry's MCPB bundle as an upstream: installed for its form (the manifest, and so the
 * bundle's own settings, is only known once it is unpacked), launched with the filled settings, and
 * switched to a newer published version by Update.
 */
import type { ServerConfig } from '../../../../shared/config.js';
import type { InputProblem } from '../entry-inputs.js';
import type { McpbInstall } from '../launch-plan.js';
import type { Package, ServerDetail } from '../server-json.js';
import type { BundleInstaller, BundleRefOf } from './bundle-installer.js';
import { bundleValues } from './bundle-settings.js';
import type { BundleLaunch } from './mcpb-launch.js';
import type { InstalledBundle } from './mcpb-bundle.js';

/** A refusal after the bundle was installed; `key` names the form field when one is at fault. */
export class BundleRefusal extends Error {
  override name = 'BundleRefusal';
  constructor(
    message: string,
    readonly key?: string,
  ) {
    super(message);
  }
}

/** Installs (or finds) the bundle a plan names. */
export function installPlanned(bundles: BundleInstaller, mcpb: McpbInstall, server: ServerDetail) {
  return bundles.install({ name: server.name, version: mcpb.version ?? server.version, url: mcpb.url, sha256: mcpb.sha256 });
}

/**
 * The launch of an installed bundle with the form's settings: a setting's problem is a BundleRefusal
 * naming its field. `secretValues` gets the sensitive values, which the caller keeps out of config.json.
 */
export async function launchWithSettings(
  bundles: BundleInstaller,
  bundle: InstalledBundle,
  mcpb: McpbInstall,
  values: Readonly<Record<string, string>>,
  secretValues: Set<string>,
): Promise<BundleLaunch> {
  const settings = bundleValues(bundle.manifest, values);
  const problem: InputProblem | undefined = settings.problems[0];
  if (problem) throw new BundleRefusal(problem.message, problem.key);
  for (const v of settings.secretValues) secretValues.add(v);
  try {
    return await bundles.launch(bundle, mcpb.packageArgs, mcpb.env, settings.userConfig);
  } catch (err) {
    throw new BundleRefusal(err instanceof Error ? err.message : String(err));
  }
}

/** The entry's first bundle with its checksum, and the version its folder is named after. */
export function publishedBundle(server: ServerDetail): { pkg: Package & { fileSha256: string }; version: string } | undefined {
  const pkg = (server.packages ?? []).find((p) => p.registryType === 'mcpb' && p.fileSha256);
  if (!pkg?.fileSha256) return undefined;
  return { pkg: { ...pkg, fileSha256: pkg.fileSha256 }, version: pkg.version ?? server.version };
}

/**
 * The upstream's config switched from one installed bundle to another: every path into the old folder
 * now points into the new one; the settings (already filled into the command line and variables, the
 * sensitive ones as secret references) stay. A version that starts differently or asks for other
 * settings cannot be switched this way: a BundleRefusal says to add it again.
 */
export function switchBundle(config: ServerConfig, from: { ref: BundleRefOf; bundle: InstalledBundle }, to: InstalledBundle): ServerConfig {
  const same = (b: InstalledBundle) =>
    JSON.stringify({ run: b.manifest.server.mcp_config, settings: Object.keys(b.manifest.user_config ?? {}).sort() });
  if (config.type !== 'stdio' || same(from.bundle) !== same(to)) {
    throw new BundleRefusal(
      `Version ${to.manifest.version} of ${from.ref.name} starts differently or asks for other settings than the version this server runs, so it cannot be switched over in place. Remove the server and add it again from Browse.`,
    );
  }
  const move = (s: string) =>
    s === from.ref.dir || s.startsWith(from.ref.dir + '/') || s.startsWith(from.ref.dir + '\\') ? to.dir + s.slice(from.ref.dir.length) : s;
  return {
    ...config,
    command: move(config.command),
    args: config.args.map(move),
    env: Object.fromEntries(Object.entries(config.env).map(([k, v]) => [k, move(v)])),
    ...(config.cwd ? { cwd: move(config.cwd) } : {}),
  };
}
