/**
 * The npm installs of one hub: its packages folder, the npm registry it downloads from, and the runtime
 * that runs what it installed. Made as the hub starts, which is when an interrupted install is cleaned.
 */
import type { ServerConfig } from '../../../../shared/config.js';
import { findInstalled, installNpmPackage, latestVersion, type InstalledPackage, type NpmSource } from './npm-install.js';
import { InstallsFolder } from './installs-folder.js';
import { ownRuntimeLaunch, type OwnRuntime } from './own-runtime.js';
import { packageOfFile, packagesDir, parsePackageFolderName, type PackageRef } from './package-folders.js';

export interface NpmInstallerOptions {
  dataDir: string;
  /** The npm registry's URL, read at each install (a setting or the environment). */
  registry(): string;
  runtime?: OwnRuntime;
  /** Called as an install starts ("Installing name 1.2.3…"). */
  onInstalling?(ref: { name: string; version?: string }): void;
}

export class NpmInstaller extends InstallsFolder {
  constructor(private readonly options: NpmInstallerOptions) {
    super(packagesDir(options.dataDir), options.runtime);
  }

  private source(): NpmSource {
    return { dir: this.dir, registry: this.options.registry() };
  }

  /** Installs name@version (latest when none), or finds it installed. */
  async install(name: string, version?: string): Promise<InstalledPackage> {
    if (!version || !(await findInstalled(this.source(), { name, version }))) this.options.onInstalling?.({ name, version });
    return installNpmPackage(this.source(), name, version);
  }

  /** The registry's latest version of a package. */
  latest(name: string): Promise<string> {
    return latestVersion(this.source(), name);
  }

  /** The stdio launch that runs an installed package's program with the app's own runtime. */
  launch(installed: InstalledPackage, packageArgs: string[], env: Record<string, string>) {
    return ownRuntimeLaunch(this.runtime, installed.script, packageArgs, env);
  }

  /** The installed package an upstream runs, when it runs one of this installer's packages. */
  packageOf(config: ServerConfig): (PackageRef & { folder: string }) | undefined {
    if (config.type !== 'stdio' || !config.args?.[0]) return undefined;
    return packageOfFile(this.dir, config.args[0]);
  }

  protected folderOf(config: ServerConfig): string | undefined {
    return this.packageOf(config)?.folder;
  }

  protected isInstall(name: string): boolean {
    return parsePackageFolderName(name) !== undefined;
  }
}
