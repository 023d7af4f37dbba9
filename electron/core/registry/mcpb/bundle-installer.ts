/**
 * The MCPB bundles of one hub: its bundles folder (`<data>/bundles/<name>@<version>/`) and the runtime
 * that runs their node servers (the app's own, install/own-runtime.ts). Made as the hub starts, which is
 * when what an interrupted install left is removed.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import type { ServerConfig } from '../../../../shared/config.js';
import { bundleRefProblem, isChildFolder } from '../install/install-names.js';
import { InstallsFolder } from '../install/installs-folder.js';
import type { OwnRuntime } from '../install/own-runtime.js';
import { BundleError, bundlesDir, installBundle, installedBundle, type DownloadLimits, type InstalledBundle } from './mcpb-bundle.js';
import { bundleLaunch, type BundleLaunch, type BundleUserConfig } from './mcpb-launch.js';

export interface BundleInstallerOptions {
  dataDir: string;
  runtime?: OwnRuntime;
  fetch?: typeof fetch;
  /** How long a download may stall and take in all (mcpb-bundle.ts's defaults otherwise). */
  downloadLimits?: DownloadLimits;
  /** Called as a download starts ("Installing name 1.2.3…"). */
  onInstalling?(ref: { name: string; version?: string }): void;
}

/** What to install: the registry entry's name and version, the bundle's URL and its published SHA-256. */
export interface BundleRef {
  name: string;
  version: string;
  url: string;
  sha256: string;
}

/**
 * `io.github.owner/name` 1.2.3 → `io.github.owner+name@1.2.3` (a registry name has one slash). Both come
 * from a registry answer: anything but a plain name and version is refused (install-names.ts).
 */
export function bundleFolderName(ref: { name: string; version: string }): string {
  const problem = bundleRefProblem(ref);
  if (problem) throw new BundleError(problem);
  return `${ref.name.replace(/\//g, '+')}@${ref.version}`;
}

/** An installed bundle an upstream runs: the registry entry's name and version, and its folder. */
export interface BundleRefOf {
  name: string;
  version: string;
  dir: string;
}

/** `io.github.owner+name@1.2.3` → its name and version (registry names hold no `+` and no `@`). */
function parseFolder(folder: string): { name: string; version: string } | undefined {
  const at = folder.lastIndexOf('@');
  if (at <= 0 || folder.startsWith('.')) return undefined;
  return { name: folder.slice(0, at).replace(/\+/g, '/'), version: folder.slice(at + 1) };
}

export class BundleInstaller extends InstallsFolder {
  constructor(private readonly options: BundleInstallerOptions) {
    super(bundlesDir(options.dataDir), options.runtime);
  }

  /** Installs the bundle (or finds it installed); `fresh` says whether this call put it there. */
  async install(ref: BundleRef): Promise<InstalledBundle & { fresh: boolean }> {
    const folder = bundleFolderName(ref);
    const fresh = !existsSync(join(this.dir, folder));
    if (fresh) this.options.onInstalling?.({ name: ref.name, version: ref.version });
    const bundle = await installBundle(this.dir, { url: ref.url, sha256: ref.sha256, folder }, this.options.fetch, this.options.downloadLimits);
    return { ...bundle, fresh };
  }

  /** The installed bundle in `dir` (a folder of this installer). */
  installed(dir: string): Promise<InstalledBundle> {
    return installedBundle(dir);
  }

  /** The bundle an upstream runs from this folder (its command or a word of its command line is in it). */
  bundleOf(config: ServerConfig): BundleRefOf | undefined {
    if (config.type !== 'stdio') return undefined;
    for (const word of [config.command, ...config.args]) {
      const rel = relative(this.dir, word);
      if (rel === '' || rel.startsWith('..') || !word.startsWith(this.dir + sep)) continue;
      const folder = rel.split(sep)[0];
      const parsed = parseFolder(folder);
      if (parsed) return { ...parsed, dir: join(this.dir, folder) };
    }
    return undefined;
  }

  /** The bundle installed in `dir`, a folder directly in this installer's (the previous install of a server). */
  refOfFolder(dir: string): BundleRefOf | undefined {
    if (dirname(dir) !== this.dir) return undefined;
    const parsed = parseFolder(basename(dir));
    return parsed ? { ...parsed, dir } : undefined;
  }

  /** The stdio launch of an installed bundle with its settings, and the entry's own arguments and variables added. */
  async launch(
    bundle: InstalledBundle,
    packageArgs: string[],
    env: Record<string, string>,
    userConfig: BundleUserConfig = {},
  ): Promise<BundleLaunch> {
    const launch = await bundleLaunch(bundle, this.runtime, userConfig);
    return { ...launch, args: [...launch.args, ...packageArgs], env: { ...launch.env, ...env, ...this.runtimeEnv(launch) } };
  }

  /** The runtime's variables win over the entry's only when the runtime is what runs the bundle. */
  private runtimeEnv(launch: BundleLaunch): Record<string, string> {
    return launch.command === this.runtime.command ? this.runtime.env : {};
  }

  protected folderOf(config: ServerConfig): string | undefined {
    return this.bundleOf(config)?.dir;
  }

  protected isInstall(name: string): boolean {
    return parseFolder(name) !== undefined;
  }

  /** Removes an installed bundle's folder (one refused after install, that no server uses); only ever a folder directly in bundles/. */
  async remove(bundle: { dir: string }): Promise<void> {
    if (!isChildFolder(this.dir, bundle.dir)) return;
    await rm(bundle.dir, { recursive: true, force: true });
  }
}
