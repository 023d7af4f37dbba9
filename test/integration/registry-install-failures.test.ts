/**
 * What an npm install says when it fails other than by a plain network error, with a small
 * local server playing the npm registry: a dependency the registry lacks is named (not the package
 * itself); a package document that is not JSON and a download that is not a package archive are "a
 * damaged answer", never the parser's text; a registry that never answers gives up after the timeout
 * with the "could not reach" words; a package that did not unpack whole (node-tar only logs a file it
 * could not write, as on a full disk) is not installed. Nothing is left in the packages folder.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installNpmPackage, type NpmSource } from '../../electron/core/registry/install/npm-install.js';
import { npmTarball, packument } from '../support/npm-tarball.js';

let server: Server;
let base: string;
let dir: string;
let stalled = 0;
const files = new Map<string, Buffer>();
/** Package documents by name, as the registry sends them (text: some are broken on purpose). */
const docs = new Map<string, string>();

/** Publishes name@1.0.0 with these files (a package.json and a bin are added) and dependencies. */
function publish(name: string, extra: Record<string, string> = {}, dependencies?: Record<string, string>) {
  const manifest = { name, version: '1.0.0', bin: { [name]: 'x.js' }, ...(dependencies ? { dependencies } : {}) };
  const tarball = npmTarball({ 'package.json': JSON.stringify(manifest), 'x.js': 'process.exit(0);\n', ...extra });
  files.set(`${name}-1.0.0.tgz`, tarball);
  const doc = packument(name, [{ version: '1.0.0', tarball, tarballUrl: `${base}/files/${name}-1.0.0.tgz`, bin: manifest.bin }], '1.0.0');
  if (dependencies) Object.assign(doc.versions['1.0.0'], { dependencies });
  docs.set(name, JSON.stringify(doc));
}

const source = (registry = `${base}/npm/`): NpmSource => ({ dir: join(dir, 'packages'), registry, timeoutMs: 1_000 });
const failure = (name: string, registry?: string) =>
  installNpmPackage(source(registry), name, '1.0.0').then(
    () => expect.fail(`${name} was installed`),
    (err: unknown) => err as { kind: string; message: string },
  );
/** What is left in the packages folder (npm's download cache aside). */
const leftBehind = async () => (await readdir(join(dir, 'packages')).catch(() => [])).filter((n) => n !== '.npm-cache');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-install-failures-'));
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (url.pathname.startsWith('/stalled/')) return void stalled++; // accepted, never answered
    const file = url.pathname.startsWith('/files/') ? files.get(url.pathname.slice('/files/'.length)) : undefined;
    if (file) return void res.writeHead(200, { 'content-length': file.length }).end(file);
    const doc = url.pathname.startsWith('/npm/') ? docs.get(decodeURIComponent(url.pathname.slice('/npm/'.length))) : undefined;
    if (doc !== undefined) return void res.writeHead(200, { 'content-type': 'application/json' }).end(doc);
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  publish('okdep');
  publish('needs-missing', {}, { 'never-published': '^1.0.0' });
  publish('needs-newer', {}, { okdep: '^2.0.0' });
  docs.set('broken-json', '{"name": "broken-json", "versions": {');
  const page = Buffer.from('<html><body>502 Bad Gateway</body></html>');
  files.set('not-a-tarball-1.0.0.tgz', page);
  docs.set(
    'not-a-tarball',
    JSON.stringify(packument('not-a-tarball', [{ version: '1.0.0', tarball: page, tarballUrl: `${base}/files/not-a-tarball-1.0.0.tgz` }], '1.0.0')),
  );
  // `lib` is a file, so node-tar cannot make the folder lib/more.js goes in: it logs that and goes on.
  publish('half-unpacked', { lib: 'a file', 'lib/more.js': 'module.exports = 1;\n' });
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((ok) => server?.close(ok));
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('npm install failures in plain words', () => {
  it('a dependency the registry does not have is named, not the package being installed', async () => {
    const err = await failure('needs-missing');
    expect(err).toMatchObject({ kind: 'not_found' });
    expect(err.message).toBe(
      `needs-missing@1.0.0 needs never-published@^1.0.0, and the npm registry (${base}/npm/) does not have it, so nothing was installed. Tell the server's publisher, or check the npm registry in use.`,
    );
    expect(await leftBehind()).toEqual([]);
  });

  it('a dependency whose wanted version was never published is named with the range', async () => {
    const err = await failure('needs-newer');
    expect(err.message).toMatch(/^needs-newer@1\.0\.0 needs okdep@\^2\.0\.0, and the npm registry \(.*\) has no version of it that fits/);
  });

  it.each([
    ['a package document that is not JSON', 'broken-json'],
    ['a download that is not a package archive', 'not-a-tarball'],
  ])('%s is a damaged answer, without the parser’s words', async (_, name) => {
    const err = await failure(name);
    expect(err).toMatchObject({ kind: 'damaged' });
    expect(err.message).toBe(
      `The npm registry sent a damaged answer (for ${name}@1.0.0, from ${base}/npm/), so nothing was installed: try again later, or check a proxy.`,
    );
    expect(await leftBehind()).toEqual([]);
  });

  it('a registry that never answers is given up on after the timeout, with the "could not reach" words', async () => {
    const err = await failure('anything', `${base}/stalled/`);
    expect(stalled).toBeGreaterThan(0);
    expect(err).toMatchObject({
      kind: 'unreachable',
      message: `Could not reach the npm registry (${base}/stalled/): it did not answer. Check the internet connection, then try again.`,
    });
  });

  it('a package that did not unpack whole is not installed, and the file is named', async () => {
    const err = await failure('half-unpacked');
    expect(err).toMatchObject({ kind: 'failed' });
    expect(err.message).toMatch(
      /^Spillway could not write all of half-unpacked@1\.0\.0's files \(half-unpacked's lib\/more\.js is missing or cut short\)/,
    );
    expect(await leftBehind()).toEqual([]);
  });
});
