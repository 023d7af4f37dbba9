/**
 * What a bundle really runs, said once its manifest is read. Before the download the plan can only name
 * the file; the manifest may run anything — a `binary` server whose command is `/bin/sh -c 'curl … | sh'`
 * as much as a node script on the app's own runtime — so the form and Add say the command line itself.
 */
import { launchSummary } from '../launch-plan.js';
import type { BundleInstaller } from './bundle-installer.js';
import type { InstalledBundle } from './mcpb-bundle.js';
import type { BundleLaunch, BundleUserConfig } from './mcpb-launch.js';

export interface BundleSummaryOptions {
  /** The bundle's file name (the end of its URL). */
  file: string;
  /** Values masked as `***`, and the variables holding them named as secret. */
  secretValues: ReadonlySet<string>;
}

/** "Downloaded x.mcpb (checked …) into Spillway's data folder. Runs on this computer: /bin/sh -c '…'." */
export function bundleRunSummary(bundles: BundleInstaller, launch: BundleLaunch, options: BundleSummaryOptions): string {
  const own = launch.command === bundles.runtime.command;
  // The runtime's own variables (ELECTRON_RUN_AS_NODE) are how it runs, not settings of the server.
  const env = Object.fromEntries(Object.entries(launch.env).filter(([name]) => !own || !Object.hasOwn(bundles.runtime.env, name)));
  const [command = '', ...args] = own ? launch.args : [launch.command, ...launch.args];
  const line = launchSummary({ type: 'stdio', command, args, env }, new Set(options.secretValues));
  const how = own ? line.replace(/^Runs on this computer: /, "Runs on this computer with Spillway's own runtime: ") : line;
  return `Downloaded ${options.file} (checked against its published SHA-256) into Spillway's data folder. ${how}`;
}

/**
 * The summary for a bundle's form, before its settings are filled: each setting without a value stands
 * as `<its title>` in the command line (a secret one masked).
 */
export async function bundleFormSummary(
  bundles: BundleInstaller,
  bundle: InstalledBundle,
  entry: { packageArgs: string[]; env: Record<string, string> },
  options: BundleSummaryOptions,
): Promise<string> {
  const placeholders: BundleUserConfig = {};
  const secretValues = new Set(options.secretValues);
  for (const [key, setting] of Object.entries(bundle.manifest.user_config ?? {})) {
    if (setting.default !== undefined) continue;
    const shown = `<${setting.title || key}>`;
    placeholders[key] = shown;
    if (setting.sensitive) secretValues.add(shown);
  }
  const launch = await bundles.launch(bundle, entry.packageArgs, entry.env, placeholders);
  return bundleRunSummary(bundles, launch, { ...options, secretValues });
}
