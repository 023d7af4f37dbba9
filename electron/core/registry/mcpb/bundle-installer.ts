/**
 * The MCPB bundles of one hub: its bundles folder (`<data>/bundles/<name>@<version>/`) and the runtime
 * that runs their node servers (the app's own, install/own-runtime.ts). Made as the hub starts, which is
 * when what an interrupted install left is removed.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ownRuntime, type OwnRuntime } from '../install/own-runtime.js';
import { bundlesDir, cleanInterruptedBundles, installBundle, type InstalledBundle } from './mcpb-bundle.js';
import { bundleLaunch, missingUserConfig, type BundleLaunch } from './mcpb-launch.js';

export interface BundleInstallerOptions {
  dataDir: string;
  runtime?: OwnRuntime;
  fetch?: typeof fetch;
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

/** `io.github.owner/name` 1.2.3 → `io.github.owner+name@1.2.3` (a registry name has one slash). */
export const bundleFolderName = (ref: { name: string; version: string }) => `${ref.name.replace(/\//g, '+')}@${ref.version}`;

export class BundleInstaller {
  readonly dir: string;
  readonly runtime: OwnRuntime;
  /** The folders an interrupted install had left, removed when this installer was made. */
  readonly cleaned: string[];

  constructor(private readonly options: BundleInstallerOptions) {
    this.dir = bundlesDir(options.dataDir);
    this.runtime = options.runtime ?? ownRuntime();
    this.cleaned = cleanInterruptedBundles(this.dir);
  }

  /** Installs the bundle (or finds it installed); `fresh` says whether this call put it there. */
  async install(ref: BundleRef): Promise<InstalledBundle & { fresh: boolean }> {
    const folder = bundleFolderName(ref);
    const fresh = !existsSync(join(this.dir, folder));
    if (fresh) this.options.onInstalling?.({ name: ref.name, version: ref.version });
    const bundle = await installBundle(this.dir, { url: ref.url, sha256: ref.sha256, folder }, this.options.fetch);
    return { ...bundle, fresh };
  }

  /** The user_config fields the bundle requires that have no default (titles, for the message). */
  missingSettings(bundle: InstalledBundle): string[] {
    return missingUserConfig(bundle.manifest);
  }

  /** The stdio launch of an installed bundle, with the entry's own arguments and variables added. */
  async launch(bundle: InstalledBundle, packageArgs: string[], env: Record<string, string>): Promise<BundleLaunch> {
    const launch = await bundleLaunch(bundle, this.runtime);
    return { ...launch, args: [...launch.args, ...packageArgs], env: { ...launch.env, ...env, ...this.runtimeEnv(launch) } };
  }

  /** The runtime's variables win over the entry's only when the runtime is what runs the bundle. */
  private runtimeEnv(launch: BundleLaunch): Record<string, string> {
    return launch.command === this.runtime.command ? this.runtime.env : {};
  }

  /** Removes an installed bundle's folder (one refused after install, that no server uses). */
  async remove(bundle: { dir: string }): Promise<void> {
    if (!bundle.dir.startsWith(this.dir)) return;
    await rm(bundle.dir, { recursive: true, force: true });
  }
}
