/**
 * MCPB bundles (`registryType: mcpb`, issue 16): a zip holding a server and its dependencies, published
 * with the SHA-256 of the file. Installing one downloads it while hashing, refuses a mismatch, unpacks it
 * off the main thread (fflate's workers) into `.installing-*` beside the installed bundles, checks its
 * manifest with the official MCPB schema, then renames the folder into place: a folder with a bundle's
 * name is always complete, and a failure leaves nothing behind.
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { unzip, type Unzipped } from 'fflate';
import type { McpbManifestAny } from '@anthropic-ai/mcpb';
import { renameOver } from '../../files/atomic-file.js';
import { diskProblem, errorCode } from '../../files/disk-problem.js';
import { DISK_FULL } from '../install/npm-failure.js';
// One prefix for npm packages and bundles: what an interrupted install of either left is cleaned alike (install/installs-folder.ts).
import { INSTALLING_PREFIX } from '../install/package-folders.js';
import { childFolder } from '../install/install-names.js';

/** A bundle larger than this (packed or unpacked) is refused: no server needs it, and a zip bomb would fill the disk. */
export const MAX_BUNDLE_BYTES = 512 * 1024 * 1024;

/** The data folder's bundles folder. */
export const bundlesDir = (dataDir: string) => join(dataDir, 'bundles');

/**
 * How long a download may go without a byte arriving (reset by every chunk), and how long it may take in
 * all: a server that sends its headers and then stalls, or drips forever, must not leave the form waiting.
 */
export interface DownloadLimits {
  idleMs: number;
  totalMs: number;
}

export const DEFAULT_DOWNLOAD_LIMITS: DownloadLimits = { idleMs: 30_000, totalMs: 15 * 60_000 };

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
export async function installBundle(
  dir: string,
  source: BundleSource,
  fetchImpl: typeof fetch = fetch,
  limits: DownloadLimits = DEFAULT_DOWNLOAD_LIMITS,
): Promise<InstalledBundle> {
  // Only ever a folder directly in `dir`: an existing folder elsewhere would be taken as installed and run.
  const target = childFolder(dir, source.folder);
  if (!target) throw new BundleError(`The bundle's folder name ${JSON.stringify(source.folder)} would leave the bundles folder; not installed.`);
  const existing = await readManifest(target).catch(() => undefined);
  if (existing) return { dir: target, manifest: existing };
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const building = join(dir, `${INSTALLING_PREFIX}${randomBytes(6).toString('hex')}`);
  try {
    const zip = await download(source, fetchImpl, limits);
    await unpack(zip, building);
    const manifest = await readManifest(building);
    // Tried again while Windows reports the unpacked files held (Defender scans each new file).
    await renameOver(building, target);
    return { dir: target, manifest };
  } catch (err) {
    // A folder that cannot be removed now goes at the next start; it must not replace what went wrong.
    await rm(building, { recursive: true, force: true, maxRetries: 5 }).catch(() => undefined);
    throw bundleInstallFailure(err, source.url, dir);
  }
}

/** A failed install in plain words: the disk's own problems (full, read-only, not allowed) as the npm installs say them. */
export function bundleInstallFailure(err: unknown, url: string, dir: string): BundleError {
  if (err instanceof BundleError) return err;
  const code = errorCode(err);
  if (code === 'ENOSPC' || code === 'EDQUOT') return new BundleError(DISK_FULL);
  const disk = diskProblem(code, dir);
  if (disk)
    return new BundleError(`Could not install the bundle: ${disk.problem}, so nothing was installed. ${disk.next}, then add the server again.`);
  return new BundleError(`Could not install the bundle ${url}: ${(err as Error).message ?? err}`);
}

async function download(source: BundleSource, fetchImpl: typeof fetch, limits: DownloadLimits): Promise<Uint8Array> {
  const stop = new AbortController();
  let stalled: 'idle' | 'total' | undefined;
  const abort = (why: 'idle' | 'total') => () => {
    stalled = why;
    stop.abort();
  };
  const total = setTimeout(abort('total'), limits.totalMs);
  let idle = setTimeout(abort('idle'), limits.idleMs);
  const arrived = () => {
    clearTimeout(idle);
    idle = setTimeout(abort('idle'), limits.idleMs);
  };
  try {
    return await downloadChecked(source, fetchImpl, stop.signal, arrived);
  } catch (err) {
    if (!stalled) throw err;
    throw new BundleError(
      stalled === 'idle'
        ? `The download of ${source.url} stopped: nothing arrived for ${duration(limits.idleMs)}, so it was cancelled and nothing was installed. Check the internet connection and try again; if it keeps happening, tell the server's publisher.`
        : `The download of ${source.url} took longer than ${duration(limits.totalMs)}, so it was cancelled and nothing was installed. Try again on a faster connection; if it keeps happening, tell the server's publisher.`,
    );
  } finally {
    clearTimeout(total);
    clearTimeout(idle);
  }
}

/** "30 seconds", "15 minutes", "0.3 seconds". */
function duration(ms: number): string {
  if (ms >= 120_000) return `${Math.round(ms / 60_000)} minutes`;
  return `${ms >= 10_000 ? Math.round(ms / 1000) : Number((ms / 1000).toFixed(1))} seconds`;
}

/** The download's bytes, hashed as they arrive and checked against the published SHA-256; `arrived` is told of every chunk. */
async function downloadChecked(source: BundleSource, fetchImpl: typeof fetch, signal: AbortSignal, arrived: () => void): Promise<Uint8Array> {
  let res: Response;
  try {
    res = await fetchImpl(source.url, { redirect: 'follow', signal });
  } catch (err) {
    if (signal.aborted) throw err;
    throw new BundleError(`Could not download ${source.url} (${(err as Error).message}). Check the internet connection and try again.`);
  }
  if (!res.ok || !res.body) throw new BundleError(`Could not download ${source.url}: the server answered ${res.status}. Try again later.`);
  const hash = createHash('sha256');
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    arrived();
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
