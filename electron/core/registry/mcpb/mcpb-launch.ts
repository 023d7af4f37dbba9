/**
 * How an installed MCPB bundle runs: its manifest's `mcp_config` with the variables filled by the
 * official MCPB library (`${__dirname}`, `${HOME}`, `${user_config.*}` with the manifest's defaults,
 * platform overrides). A `node` server runs on the app's own runtime (no Node needed on the computer);
 * a `binary` one is made executable; a `python` one names the interpreter it needs.
 */
import { homedir } from 'node:os';
import { isAbsolute, join, relative, sep } from 'node:path';
import type { McpbManifestAny } from '@anthropic-ai/mcpb';
import { BundleError, makeExecutable, type InstalledBundle } from './mcpb-bundle.js';

/** The runtime that stands in for `node` (see install/own-runtime.ts). */
export interface BundleRuntime {
  command: string;
  env: Record<string, string>;
}

export interface BundleLaunch {
  type: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
}

export type BundleUserConfig = Record<string, string | number | boolean | string[]>;

/** The user_config fields a manifest requires that have neither a value nor a default. */
export function missingUserConfig(manifest: McpbManifestAny, userConfig: BundleUserConfig = {}): string[] {
  return Object.entries(manifest.user_config ?? {})
    .filter(([key, option]) => option.required && option.default === undefined && [undefined, ''].includes(userConfig[key] as string))
    .map(([key, option]) => option.title || key);
}

/** The stdio command line of an installed bundle. */
export async function bundleLaunch(bundle: InstalledBundle, runtime: BundleRuntime, userConfig: BundleUserConfig = {}): Promise<BundleLaunch> {
  const missing = missingUserConfig(bundle.manifest, userConfig);
  if (missing.length > 0) throw new BundleError(`The bundle needs a value for ${missing.join(', ')} before it can start.`);
  const { getMcpConfigForManifest } = await import('@anthropic-ai/mcpb/node');
  const home = homedir();
  const config = await getMcpConfigForManifest({
    manifest: bundle.manifest,
    extensionPath: bundle.dir,
    systemDirs: { HOME: home, DESKTOP: join(home, 'Desktop'), DOCUMENTS: join(home, 'Documents'), DOWNLOADS: join(home, 'Downloads') },
    userConfig,
    pathSeparator: sep,
  });
  if (!config) throw new BundleError(`The bundle ${bundle.manifest.name} declares no command to run.`);
  const args = config.args ?? [];
  const env = { ...(config.env ?? {}) };
  const { type } = bundle.manifest.server;
  if (type === 'node' && /^node(\.exe)?$/i.test(config.command)) {
    return { type: 'stdio', command: runtime.command, args, env: { ...env, ...runtime.env } };
  }
  if (type === 'binary') {
    const rel = relative(bundle.dir, config.command);
    if (isAbsolute(config.command) && !rel.startsWith('..') && !isAbsolute(rel)) await makeExecutable(config.command);
  }
  return { type: 'stdio', command: config.command, args, env };
}
