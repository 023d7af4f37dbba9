/**
 * Installs an npm package and its dependencies into the data folder with @npmcli/arborist (npm's own
 * installer): the package is the only dependency of a small project built in a temp folder, with no
 * install scripts, audit or funding calls, checked to be unpacked whole, then renamed into place. A
 * failed download, a checksum (integrity) mismatch or a file the disk had no room for removes the temp
 * folder, so nothing is left behind.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile, mkdir, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { renameOver } from '../../files/atomic-file.js';
// Arborist and pacote load a few hundred modules: they are imported on the first install, not at hub start.
const libraries = async () => ({ Arborist: (await import('@npmcli/arborist')).default, pacote: (await import('pacote')).default });
import { ensurePackagesDir, INSTALLING_PREFIX, packageFolderName, type PackageRef } from './package-folders.js';
import { childFolder, npmRefProblem } from './install-names.js';
import { DISK_FULL, InstallError, installFailure, registryOrigin } from './npm-failure.js';
import { incompleteFile, tarballFiles } from './unpacked-check.js';
import type { ArboristTree } from '@npmcli/arborist';

// The failure words live in npm-failure.ts; the installer's callers find them here too.
export { InstallError, installFailure };

export const DEFAULT_NPM_REGISTRY = 'https://registry.npmjs.org/';
/** How long one npm request may wait for an answer: npm's own default is 5 minutes, a long time to watch Add spin. */
const NPM_TIMEOUT_MS = 30_000;

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
  /** How long one request may wait for an answer (30 s by default). */
  timeoutMs?: number;
}

const cacheDir = (source: NpmSource) => join(source.dir, '.npm-cache');
/** The options every npm request takes. */
const fetchOptions = (source: NpmSource) => ({ registry: source.registry, cache: cacheDir(source), timeout: source.timeoutMs ?? NPM_TIMEOUT_MS });

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

/** The registry's newest version of a package (its `latest` tag), asked afresh. */
export async function latestVersion(source: NpmSource, name: string): Promise<string> {
  try {
    const { pacote } = await libraries();
    const manifest = await pacote.manifest(`${name}@latest`, { ...fetchOptions(source), preferOnline: true });
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
      ...fetchOptions(source),
      ignoreScripts: true,
      audit: false,
      fund: false,
      save: false,
      preferOnline: true,
    });
    await checkUnpacked(await arborist.reify({ save: false }), source, spec);
    const installed = await installedIn(temp, ref);
    // The folder is named after the version asked for, never the downloaded package.json's own claim.
    if (installed.version !== resolved)
      throw new InstallError(
        `The npm registry (${registryOrigin(source.registry)}) sent ${name} ${JSON.stringify(installed.version)} when ${resolved} was asked for, so nothing was installed. Check the npm registry in use, or tell the server's publisher.`,
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
    const failure = installFailure(err, spec, source.registry);
    // Tried a few times (Arborist may still be writing into it when its reify has failed); a folder left
    // anyway goes at the next start, and must not replace what went wrong.
    await rm(temp, { recursive: true, force: true, maxRetries: 5 }).catch(() => undefined);
    // On a full disk the download cache (Spillway's own, in the packages folder) holds what was fetched so far.
    if (failure.kind === 'disk_full') await rm(cacheDir(source), { recursive: true, force: true, maxRetries: 5 }).catch(() => undefined);
    throw failure;
  }
}

/**
 * Every downloaded package of the tree unpacked whole (unpacked-check.ts), its tarball read back from
 * npm's cache (where the install just put it). Throws, naming the first file that is missing or cut short.
 */
async function checkUnpacked(tree: ArboristTree, source: NpmSource, spec: string): Promise<void> {
  const { pacote } = await libraries();
  for (const node of tree.inventory.values()) {
    // The project itself and links were not downloaded; a bundled package was unpacked with its parent.
    if (node.isRoot || node.isLink || node.inBundle || !node.resolved || !node.integrity) continue;
    const files = await tarballFiles(await pacote.tarball(node.resolved, { ...fetchOptions(source), integrity: node.integrity }));
    const path = await incompleteFile(node.path, files);
    if (path === undefined) continue;
    // node-tar said why only in a log line: less room left than the file needs means the disk filled up.
    const free = await statfs(source.dir).then(
      (s) => s.bavail * s.bsize,
      () => undefined,
    );
    const size = files.find((f) => f.path === path)?.size ?? 0;
    if (free !== undefined && free < size) throw new InstallError(DISK_FULL, 'disk_full');
    throw new InstallError(
      `Spillway could not write all of ${spec}'s files (${node.name}'s ${path} is missing or cut short), so nothing was installed. Check that the disk has free space, then add the server again.`,
      'failed',
    );
  }
}
