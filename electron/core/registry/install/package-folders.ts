/**
 * Where npm packages live in the data folder: `<data>/packages/<name>@<version>/` (a scope's slash
 * written `+`, which npm names never hold), each a small project whose only dependency is the package.
 * An install is built in a `.installing-*` folder beside them and renamed into place, so a folder with a
 * package's name is always complete; what an interrupted install left is removed at the next start.
 */
import { readdirSync, rmSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';

/** The prefix of folders an install is still building. */
export const INSTALLING_PREFIX = '.installing-';

export interface PackageRef {
  name: string;
  version: string;
}

/** The data folder's packages folder. */
export const packagesDir = (dataDir: string) => join(dataDir, 'packages');

/** `@scope/name@1.2.3` → `@scope+name@1.2.3`. */
export function packageFolderName(ref: PackageRef): string {
  return `${ref.name.replace('/', '+')}@${ref.version}`;
}

/** The reverse of packageFolderName, or undefined for a folder that is not an installed package. */
export function parsePackageFolderName(folder: string): PackageRef | undefined {
  if (folder.startsWith('.')) return undefined;
  const at = folder.lastIndexOf('@');
  if (at <= 0) return undefined;
  const name = folder.slice(0, at);
  const version = folder.slice(at + 1);
  if (!version) return undefined;
  if (name.startsWith('@')) {
    const plus = name.indexOf('+');
    return plus > 1 ? { name: `${name.slice(0, plus)}/${name.slice(plus + 1)}`, version } : undefined;
  }
  return name.includes('+') ? undefined : { name, version };
}

/** The installed package a file belongs to (e.g. the script an upstream runs), or undefined when it is outside the packages folder. */
export function packageOfFile(dir: string, file: string): (PackageRef & { folder: string }) | undefined {
  const rel = relative(dir, file);
  if (!rel || rel.startsWith('..') || isAbsolute(rel)) return undefined;
  const folder = rel.split(sep)[0];
  const ref = parsePackageFolderName(folder);
  return ref ? { ...ref, folder: join(dir, folder) } : undefined;
}

/**
 * Removes what interrupted installs left behind; returns the folders removed. Synchronous, because it
 * runs once as the hub starts, before any install can begin.
 */
export function cleanInterruptedInstalls(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const left = names.filter((n) => n.startsWith(INSTALLING_PREFIX)).map((n) => join(dir, n));
  for (const folder of left) rmSync(folder, { recursive: true, force: true });
  return left;
}

/**
 * Removes the installs in `dir` that no server uses (`used`: the folders servers run from); returns the
 * folders removed. Anything that is not an install (`isInstall` says) is left alone.
 */
export async function removeUnusedInstalls(dir: string, isInstall: (name: string) => boolean, used: ReadonlySet<string>): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const unused = names.filter((name) => isInstall(name) && !used.has(join(dir, name))).map((name) => join(dir, name));
  for (const folder of unused) await rm(folder, { recursive: true, force: true });
  return unused;
}

/** Makes sure the packages folder exists. */
export async function ensurePackagesDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
}
