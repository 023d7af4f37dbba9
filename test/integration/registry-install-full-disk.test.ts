/**
 * Installs from the catalog on a disk that fills up or refuses writes (audit s19): the npm install and
 * the bundle install each say the disk is full in the same plain words (never a raw ENOSPC, nor the
 * ENOTEMPTY of a cleanup that raced npm's own writes), and leave nothing behind: no `.installing-*`
 * folder, no half-filled download cache. A read-only disk is named as such. Each disk is a small tmpfs
 * (root only: skipped, saying why, where mounting is refused).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { installNpmPackage } from '../../electron/core/registry/install/npm-install.js';
import { DISK_FULL } from '../../electron/core/registry/install/npm-failure.js';
import { bundleInstallFailure, installBundle } from '../../electron/core/registry/mcpb/mcpb-bundle.js';
import { fixture } from '../support/hub-harness.js';
import { sha256 } from '../support/mcpb-bundle.js';
import { spawnUntil, type Started } from '../support/processes.js';

const root = await mkdtemp(join(tmpdir(), 'spillway-install-full-disk-'));

/** Mounts a tmpfs with `options` on a new folder under `root`; the error's message when that is not permitted. */
function mountTmpfs(name: string, options: string): { dir: string; error?: string } {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { stdio: 'pipe' });
    return { dir };
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return { dir, error: stderr || (error as Error).message };
  }
}

const npmDisk = mountTmpfs('npm', 'size=2m');
const bundleDisk = mountTmpfs('bundle', 'size=2m');
const readOnly = mountTmpfs('read-only', 'size=1m,ro');

let npm: Started & { url: string };
let bundleServer: Server;
let bundleUrl: string;
let bundleSha: string;

beforeAll(async () => {
  const n = await spawnUntil(
    process.execPath,
    [fixture('npm-registry-fixture.mjs'), '--port', '0', '--as', 'airtable-mcp-server@1.7.3'],
    /NPM-REGISTRY-FIXTURE (http:\/\/\S+)/,
  );
  npm = { ...n, url: n.match[1] };
  // A bundle with 3 MB in it, served over HTTP as a registry entry's bundle is.
  const manifest = {
    manifest_version: '0.3',
    name: 'big',
    version: '1.0.0',
    description: 'A bundle larger than the disk',
    author: { name: 'Spillway tests' },
    server: { type: 'node', entry_point: 'server/index.mjs', mcp_config: { command: 'node', args: ['${__dirname}/server/index.mjs'] } },
  };
  const zip = Buffer.from(
    zipSync(
      {
        'manifest.json': new TextEncoder().encode(JSON.stringify(manifest)),
        'server/index.mjs': new TextEncoder().encode('// server\n'),
        'server/blob.bin': randomBytes(3 * 1024 * 1024),
      },
      { level: 0 },
    ),
  );
  bundleSha = sha256(zip);
  bundleServer = createServer((_req, res) => res.writeHead(200, { 'content-length': zip.length }).end(zip));
  await new Promise<void>((ok) => bundleServer.listen(0, '127.0.0.1', ok));
  bundleUrl = `http://127.0.0.1:${(bundleServer.address() as AddressInfo).port}/big.mcpb`;
}, 60_000);

afterAll(async () => {
  await npm?.stop();
  bundleServer?.closeAllConnections();
  await new Promise((ok) => bundleServer?.close(ok));
  for (const disk of [npmDisk, bundleDisk, readOnly]) {
    try {
      execFileSync('umount', [disk.dir], { stdio: 'pipe' });
    } catch {
      // not mounted
    }
  }
  await rm(root, { recursive: true, force: true });
});

describe.skipIf(npmDisk.error !== undefined)('an npm install on a disk that fills up', () => {
  it('says the disk is full and leaves no temp folder and no download cache', async () => {
    const dir = join(npmDisk.dir, 'packages');
    await expect(installNpmPackage({ dir, registry: npm.url }, 'airtable-mcp-server', '1.7.3')).rejects.toMatchObject({
      kind: 'disk_full',
      message: DISK_FULL,
    });
    expect(await readdir(dir)).toEqual([]);
  }, 120_000);
});

describe.skipIf(bundleDisk.error !== undefined || readOnly.error !== undefined)('a bundle install on a disk that refuses it', () => {
  it('says the disk is full in the npm install’s words and leaves nothing behind', async () => {
    const dir = join(bundleDisk.dir, 'bundles');
    await expect(installBundle(dir, { url: bundleUrl, sha256: bundleSha, folder: 'io.github.x+big@1.0.0' })).rejects.toMatchObject({
      name: 'BundleError',
      message: DISK_FULL,
    });
    expect(await readdir(dir)).toEqual([]);
  }, 60_000);

  it('names a read-only disk, or one Spillway may not write to, instead of the system error', async () => {
    // The error a write on that disk really gives (a bundle's unpack writes the same way).
    const refused = await writeFile(join(readOnly.dir, 'manifest.json'), '{}').then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toMatchObject({ code: 'EROFS' });
    expect(bundleInstallFailure(refused, bundleUrl, readOnly.dir).message).toBe(
      `Could not install the bundle: ${readOnly.dir} is on a disk that is read-only, so nothing was installed. Make it writable, then add the server again.`,
    );
    const denied = Object.assign(new Error(`EACCES: permission denied, mkdir '${readOnly.dir}/x'`), { code: 'EACCES' });
    expect(bundleInstallFailure(denied, bundleUrl, readOnly.dir).message).toBe(
      `Could not install the bundle: Spillway is not allowed to write in ${readOnly.dir}, so nothing was installed. Give your user write access to that folder, then add the server again.`,
    );
  });
});

if (npmDisk.error !== undefined) it.skip(`full-disk install tests need a small tmpfs; mounting one was refused: ${npmDisk.error}`, () => {});
