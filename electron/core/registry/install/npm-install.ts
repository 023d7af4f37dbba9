/**
 * Installs an npm package and its dependencies into the data folder with @npmcli/arborist (npm's own
 * installer): the package is the only dependency of a small project built in a temp folder, with no
 * install scripts, audit or funding calls, then renamed into place. A failed download or a checksum
 * (integrity) mismatch removes the temp folder, so nothing is left behind.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { renameOver } from '../../files/atomic-file.js';
// Arborist and pacote load a few hundred modules: they are imported on the first install, not at hub start.
const libraries = async () => ({ Arborist: (await import('@npmcli/arborist')).default, pacote: (await import('pacote')).default });
import { ensurePackagesDir, INSTALLING_PREFIX, packageFolderName, type PackageRef } from './package-folders.js';
import { childFolder, npmRefProblem } from './install-names.js';
import { networkReason } from '../network-reason.js';

export const DEFAULT_NPM_REGISTRY = 'https://registry.npmjs.org/';

export interface InstalledPackage extends PackageRef {
  /** The package's own folder, `<data>/packages/<name>@<version>/`. */
  folder: string;
  /** The absolute path of the program (its `bin`) the runtime runs. */
  script: string;
}

export interface NpmSource {
  /** The packages folder (package-folders.ts's packagesDir). */
  dir: string;
  /** The npm registry's URL. */
  registry: string;
}

/** An install that failed, with a message that says what happened and what to do next. */
export class InstallError extends Error {
  constructor(
    message: string,
    /** `refused`: the name or version is not one Spillway installs (install-names.ts). */
    readonly kind: 'not_found' | 'integrity' | 'unreachable' | 'no_program' | 'refused' | 'failed',
  ) {
    super(message);
    this.name = 'InstallError';
  }
}

const cacheDir = (source: NpmSource) => join(source.dir, '.npm-cache');

/** The program a package runs: its only `bin`, or the one named like the package. */
export function binOf(manifest: { name: string; bin?: string | Record<string, string> }): string | undefined {
  const { bin } = manifest;
  if (typeof bin === 'string') return bin;
  if (!bin) return undefined;
  const entries = Object.entries(bin);
  if (entries.length === 1) return entries[0][1];
  const short = manifest.name.split('/').pop();
  return bin[short ?? ''] ?? entries[0]?.[1];
}

/** The package as installed in `folder`, or why it cannot be run. */
async function installedIn(folder: string, ref: PackageRef): Promise<InstalledPackage> {
  const packageDir = join(folder, 'node_modules', ...ref.name.split('/'));
  const manifest = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    bin?: string | Record<string, string>;
  };
  const bin = binOf(manifest);
  if (!bin)
    throw new InstallError(`${ref.name} has no program to run (its package.json declares no "bin"), so Spillway cannot start it.`, 'no_program');
  return { name: ref.name, version: manifest.version, folder, script: join(packageDir, bin) };
}

/**
 * The folder name@version is installed in: a valid npm name and an exact version only, and only ever a
 * folder directly in the packages folder (both come from registry answers).
 */
function folderOf(source: NpmSource, ref: PackageRef): string {
  const problem = npmRefProblem(ref.name, ref.version);
  if (problem) throw new InstallError(problem, 'refused');
  const folder = childFolder(source.dir, packageFolderName(ref));
  if (!folder) throw new InstallError(`${ref.name} ${ref.version} would be installed outside Spillway's packages folder; not installed.`, 'refused');
  return folder;
}

/** The installed copy of name@version, when there is one. */
export async function findInstalled(source: NpmSource, ref: PackageRef): Promise<InstalledPackage | undefined> {
  const folder = folderOf(source, ref);
  return existsSync(folder) ? installedIn(folder, ref) : undefined;
}

/** The plain words of an npm failure. */
export function installFailure(err: unknown, spec: string, registry: string): InstallError {
  if (err instanceof InstallError) return err;
  const code = (err as { code?: string } | undefined)?.code ?? '';
  const message = err instanceof Error ? err.message : String(err);
  if (code === 'EINTEGRITY')
    return new InstallError(
      `The download of ${spec} did not match its checksum, so it may be damaged or tampered with. Nothing was installed. Try again later; if it keeps happening, check the npm registry in use (${registry}).`,
      'integrity',
    );
  if (code === 'E404' || code === 'ETARGET')
    return new InstallError(
      `The npm registry (${registry}) has no package ${spec}. Check the name and version, or the npm registry in use.`,
      'not_found',
    );
  if (/^(ECONNREFUSED|ENOTFOUND|ETIMEDOUT|ECONNRESET|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH)$/.test(code) || /^E5\d\d$/.test(code))
    return new InstallError(
      `Could not reach the npm registry (${registry})${networkReason(code) || (code.startsWith('E5') ? `: it answered with a server error (${code.slice(1)})` : '')}. Check the internet connection, then try again.`,
      'unreachable',
    );
  return new InstallError(`Could not install ${spec}: ${message}`, 'failed');
}

/** The registry's newest version of a package (its `latest` tag), asked afresh. */
export async function latestVersion(source: NpmSource, name: string): Promise<string> {
  try {
    const { pacote } = await libraries();
    const manifest = await pacote.manifest(`${name}@latest`, { registry: source.registry, cache: cacheDir(source), preferOnline: true });
    return manifest.version;
  } catch (err) {
    throw installFailure(err, name, source.registry);
  }
}

/**
 * Installs name@version (the `latest` version when none is given) unless it is installed already: the
 * same version runs every time until the user updates it.
 */
export async function installNpmPackage(source: NpmSource, name: string, version?: string): Promise<InstalledPackage> {
  const named = npmRefProblem(name, version);
  if (named) throw new InstallError(named, 'refused');
  // The npm registry's latest is checked as the entry's version is: both become a folder name and npm's spec.
  const resolved = version ?? (await latestVersion(source, name));
  const ref = { name, version: resolved };
  const spec = `${name}@${resolved}`;
  const folder = folderOf(source, ref);
  const already = await findInstalled(source, ref);
  if (already) return already;
  await ensurePackagesDir(source.dir);
  const temp = join(source.dir, `${INSTALLING_PREFIX}${randomUUID()}`);
  try {
    await mkdir(temp);
    const project = { name: 'spillway-installed-package', version: '0.0.0', private: true, dependencies: { [name]: resolved } };
    await writeFile(join(temp, 'package.json'), JSON.stringify(project, null, 2));
    // preferOnline: the registry's current documents, so a version published since the last look is found.
    const { Arborist } = await libraries();
    const arborist = new Arborist({
      path: temp,
      registry: source.registry,
      cache: cacheDir(source),
      ignoreScripts: true,
      audit: false,
      fund: false,
      save: false,
      preferOnline: true,
    });
    await arborist.reify({ save: false });
    const installed = await installedIn(temp, ref);
    // The folder is named after the version asked for, never the downloaded package.json's own claim.
    if (installed.version !== resolved)
      throw new InstallError(
        `The npm registry (${source.registry}) sent ${name} ${JSON.stringify(installed.version)} when ${resolved} was asked for, so nothing was installed. Check the npm registry in use, or tell the server's publisher.`,
        'refused',
      );
    try {
      // Tried again while Windows reports the new files held (Defender scans every file an install unpacks).
      await renameOver(temp, folder);
    } catch (err) {
      // Another install of the same version finished first: use that one.
      if (!existsSync(folder)) throw err;
      await rm(temp, { recursive: true, force: true });
    }
    return installedIn(folder, ref);
  } catch (err) {
    await rm(temp, { recursive: true, force: true });
    throw installFailure(err, spec, source.registry);
  }
}
