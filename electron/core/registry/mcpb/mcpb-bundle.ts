/**
 * MCPB bundles (`registryType: mcpb`, issue 16): a zip holding a server and its dependencies, published
 * with the SHA-256 of the file. Installing one downloads it while hashing, refuses a mismatch, unpacks it
 * off the main thread (fflate's workers) into `.installing-*` beside the installed bundles, checks its
 * manifest with the official MCPB schema, then renames the folder into place: a folder with a bundle's
 * name is always complete, and a failure leaves nothing behind.
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { unzip, type Unzipped } from 'fflate';
import type { McpbManifestAny } from '@anthropic-ai/mcpb';
// One prefix for npm packages and bundles: what an interrupted install of either left is cleaned alike (install/installs-folder.ts).
import { INSTALLING_PREFIX } from '../install/package-folders.js';

/** A bundle larger than this (packed or unpacked) is refused: no server needs it, and a zip bomb would fill the disk. */
export const MAX_BUNDLE_BYTES = 512 * 1024 * 1024;

/** The data folder's bundles folder. */
export const bundlesDir = (dataDir: string) => join(dataDir, 'bundles');

export class BundleError extends Error {
  override name = 'BundleError';
}

export interface InstalledBundle {
  dir: string;
  manifest: McpbManifestAny;
}

export interface BundleSource {
  /** The bundle's URL (the registry entry's `identifier`). */
  url: string;
  /** The published SHA-256 (`fileSha256`), hex. */
  sha256: string;
  /** Folder name of the installed bundle, e.g. `io.github.owner+name@1.2.3`. */
  folder: string;
}

/** Downloads, verifies, unpacks and checks a bundle into `<dir>/<folder>`; the installed bundle. */
export async function installBundle(dir: string, source: BundleSource, fetchImpl: typeof fetch = fetch): Promise<InstalledBundle> {
  const target = join(dir, source.folder);
  const existing = await readManifest(target).catch(() => undefined);
  if (existing) return { dir: target, manifest: existing };
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const building = join(dir, `${INSTALLING_PREFIX}${randomBytes(6).toString('hex')}`);
  try {
    const zip = await download(source, fetchImpl);
    await unpack(zip, building);
    const manifest = await readManifest(building);
    await rename(building, target);
    return { dir: target, manifest };
  } catch (err) {
    await rm(building, { recursive: true, force: true });
    throw err instanceof BundleError ? err : new BundleError(`Could not install the bundle ${source.url}: ${(err as Error).message ?? err}`);
  }
}

async function download(source: BundleSource, fetchImpl: typeof fetch): Promise<Uint8Array> {
  let res: Response;
  try {
    res = await fetchImpl(source.url, { redirect: 'follow' });
  } catch (err) {
    throw new BundleError(`Could not download ${source.url} (${(err as Error).message}). Check the internet connection and try again.`);
  }
  if (!res.ok || !res.body) throw new BundleError(`Could not download ${source.url}: the server answered ${res.status}. Try again later.`);
  const hash = createHash('sha256');
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += chunk.byteLength;
    if (size > MAX_BUNDLE_BYTES)
      throw new BundleError(`The bundle ${source.url} is larger than ${MAX_BUNDLE_BYTES / 1024 / 1024} MB; not installed.`);
    hash.update(chunk);
    chunks.push(chunk);
  }
  const got = hash.digest('hex');
  if (got !== source.sha256.toLowerCase()) {
    throw new BundleError(
      `The download of ${source.url} does not match its published checksum (expected ${source.sha256}, got ${got}); nothing was installed. The file may have been changed or damaged: try again, or tell the server's publisher.`,
    );
  }
  return Buffer.concat(chunks);
}

/** Unpacks a zip into `dir` with fflate's asynchronous (worker) inflate; entries leaving `dir` are refused. */
async function unpack(zip: Uint8Array, dir: string): Promise<void> {
  let total = 0;
  const files = await new Promise<Unzipped>((ok, fail) => {
    unzip(
      zip,
      {
        filter: (file) => {
          total += file.originalSize;
          return total <= MAX_BUNDLE_BYTES;
        },
      },
      (err, out) => (err ? fail(new BundleError(`The bundle is not a valid zip file (${err.message}); nothing was installed.`)) : ok(out)),
    );
  });
  if (total > MAX_BUNDLE_BYTES) throw new BundleError(`The bundle unpacks to more than ${MAX_BUNDLE_BYTES / 1024 / 1024} MB; not installed.`);
  const root = resolve(dir);
  await mkdir(root, { recursive: true, mode: 0o700 });
  for (const [name, data] of Object.entries(files)) {
    const path = resolve(root, name);
    if (path !== root && !path.startsWith(root + sep)) throw new BundleError(`The bundle holds a file outside its folder (${name}); not installed.`);
    if (name.endsWith('/')) {
      await mkdir(path, { recursive: true });
      continue;
    }
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, data);
  }
}

/** A bundle already installed in `dir` (its manifest read and checked again). */
export async function installedBundle(dir: string): Promise<InstalledBundle> {
  return { dir, manifest: await readManifest(dir) };
}

/** The bundle's manifest.json, checked against the MCPB schema (any published manifest version). */
async function readManifest(dir: string): Promise<McpbManifestAny> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
  } catch (err) {
    throw new BundleError(`The bundle has no readable manifest.json (${(err as Error).message}); not installed.`);
  }
  const { vAny } = await import('@anthropic-ai/mcpb/node');
  const parsed = vAny.McpbManifestSchema.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new BundleError(`The bundle's manifest.json is not valid (${first?.path.join('.') || 'manifest'}: ${first?.message}); not installed.`);
  }
  return parsed.data as McpbManifestAny;
}

/** Makes a bundled program runnable (zip files carry no mode here); used for `binary` servers. */
export async function makeExecutable(path: string): Promise<void> {
  await chmod(path, 0o755);
}
