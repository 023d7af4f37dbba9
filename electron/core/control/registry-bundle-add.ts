/**
 * Adding a registry entry's MCPB bundle (issue 16), for registry-handlers.ts: its form (the bundle is
 * downloaded to read its settings, and what its manifest runs is said), and its install with the form's
 * settings into the launch the upstream runs.
 */
import { isAbsolute } from 'node:path';
import { bundleFile, type LaunchPlan, type McpbInstall } from '../registry/launch-plan.js';
import type { BundleInstaller } from '../registry/mcpb/bundle-installer.js';
import { bundleFields } from '../registry/mcpb/bundle-settings.js';
import { bundleFormSummary, bundleRunSummary } from '../registry/mcpb/bundle-summary.js';
import { BundleRefusal, installPlanned, launchWithSettings } from '../registry/mcpb/bundle-upstream.js';
import { BundleError } from '../registry/mcpb/mcpb-bundle.js';
import { checkRuntime, type PathFacts } from '../registry/runtime-check.js';
import type { ServerDetail } from '../registry/server-json.js';
import { ControlError } from './control-error.js';

/** A bundle failure (download, checksum, unpacking, manifest) as the control API reports it. */
export function bundleError(err: unknown): unknown {
  return err instanceof BundleError ? new ControlError('unavailable', err.message) : err;
}

/**
 * Installs a planned bundle and gives the upstream it runs as, with the form's settings. A bundle this
 * call installed and then refused (a setting missing or wrong, a missing runtime) is removed again; one
 * the form installed stays (the form is still open, the next Add uses it).
 */
export async function installPlannedBundle(
  bundles: BundleInstaller,
  plan: LaunchPlan,
  server: ServerDetail,
  facts: PathFacts,
  values: Readonly<Record<string, string>>,
) {
  const mcpb = plan.mcpb;
  if (!mcpb) throw new Error('not a bundle plan');
  let bundle;
  try {
    bundle = await installPlanned(bundles, mcpb, server);
  } catch (err) {
    throw bundleError(err);
  }
  const refuse = async (code: 'invalid' | 'unavailable', message: string, field?: string) => {
    if (bundle.fresh) await bundles.remove(bundle);
    return new ControlError(code, message, field);
  };
  const secretValues = new Set(plan.inputs.secretValues);
  let launch;
  try {
    launch = await launchWithSettings(bundles, bundle, mcpb, values, secretValues);
  } catch (err) {
    if (err instanceof BundleRefusal) throw await refuse('invalid', err.message, err.key ? `values.${err.key}` : undefined);
    throw err;
  }
  // Only a node bundle runs on the app's own runtime; a python or other one needs its program on the PATH.
  if (launch.command !== bundles.runtime.command && !isAbsolute(launch.command)) {
    const runtime = checkRuntime(launch.command, facts);
    if (!runtime.present) throw await refuse('unavailable', runtime.missing ?? `This bundle needs ${launch.command}, which is not installed.`);
  }
  // Said from the launch itself: what the manifest really runs, not what the plan could guess.
  const summary = bundleRunSummary(bundles, launch, { file: bundleFile(mcpb.url), secretValues });
  return { launch, secretValues, summary, installed: { name: bundle.manifest.name, version: bundle.manifest.version } };
}

/**
 * A bundle's form: installed now (its settings are in its manifest, and Add is then instant), its fields,
 * and — the manifest read — the summary of what it really runs.
 */
export async function bundleForm(bundles: BundleInstaller, mcpb: McpbInstall, server: ServerDetail, secretValues: ReadonlySet<string>) {
  try {
    const bundle = await installPlanned(bundles, mcpb, server);
    const summary = await bundleFormSummary(bundles, bundle, mcpb, { file: bundleFile(mcpb.url), secretValues });
    return { summary, fields: bundleFields(bundle.manifest) };
  } catch (err) {
    throw bundleError(err);
  }
}
