/**
 * What a server runs of the installs Spillway made in the data folder: an MCPB bundle, else an npm
 * package, with the installer that holds it. One choice for `registry.installed`, `registry.update`
 * (registry-handlers.ts) and `registry.goBack` (registry-go-back.ts), so that they never disagree on
 * which installer's records and switch a server takes.
 */
import type { ServerConfig } from '../../../shared/config.js';
import type { NpmInstaller } from '../registry/install/npm-installer.js';
import type { PackageRef } from '../registry/install/package-folders.js';
import type { BundleInstaller, BundleRefOf } from '../registry/mcpb/bundle-installer.js';
import { ControlError } from './control-error.js';

/** The installers a hub has (a test's may have only one, or none). */
export interface Installers {
  npm?: NpmInstaller;
  bundles?: BundleInstaller;
}

/** An install a server runs, and its installer. */
export type InstalledKind =
  { kind: 'bundle'; ref: BundleRefOf; bundles: BundleInstaller } | { kind: 'npm'; ref: PackageRef & { folder: string }; npm: NpmInstaller };

/** The install `config` runs, a bundle looked for first; undefined when it runs none of `installers`' installs. */
export function installedKind(installers: Installers, config: ServerConfig): InstalledKind | undefined {
  const { npm, bundles } = installers;
  const bundle = bundles?.bundleOf(config);
  if (bundle && bundles) return { kind: 'bundle', ref: bundle, bundles };
  const ref = npm?.packageOf(config);
  return ref && npm ? { kind: 'npm', ref, npm } : undefined;
}

/** The config of server `id` as saved (`upstreamConfigs`: the upstreams' configs), or not_found. */
export function savedConfig(deps: { upstreamConfigs?(): Record<string, ServerConfig> }, id: string): ServerConfig {
  const configs = deps.upstreamConfigs?.() ?? {};
  const config = Object.hasOwn(configs, id) ? configs[id] : undefined;
  if (!config) throw new ControlError('not_found', `No server with id "${id}"`, 'id');
  return config;
}
