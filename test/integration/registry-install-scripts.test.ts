/**
 * npm packages that need their install script (audit s19): Spillway installs with scripts off, so a
 * package whose dependency builds a native addon (or downloads a binary) at install would be added and
 * then crash at every start. It is refused in plain words instead, naming the package that needs it, and
 * nothing is left in the packages folder. The npm registry is a local server sending crafted packages.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installNpmPackage } from '../../electron/core/registry/install/npm-install.js';
import { npmTarball, packument } from '../support/npm-tarball.js';

let server: Server;
let base: string;
let dir: string;
const files = new Map<string, Buffer>();
const docs = new Map<string, string>();

/** Publishes name@1.0.0 with this package.json and files. */
function publish(name: string, pkg: Record<string, unknown>, extra: Record<string, string>): void {
  const tarball = npmTarball({ 'package.json': JSON.stringify({ name, version: '1.0.0', ...pkg }), ...extra });
  files.set(`${name}-1.0.0.tgz`, tarball);
  const bin = pkg.bin as Record<string, string> | undefined;
  const doc = packument(name, [{ version: '1.0.0', tarball, tarballUrl: `${base}/files/${name}-1.0.0.tgz`, bin }], '1.0.0');
  Object.assign(doc.versions['1.0.0']!, pkg);
  docs.set(name, JSON.stringify(doc));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-install-scripts-'));
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', base).pathname;
    const file = path.startsWith('/files/') ? files.get(path.slice('/files/'.length)) : undefined;
    if (file) return void res.writeHead(200, { 'content-length': file.length }).end(file);
    const doc = path.startsWith('/npm/') ? docs.get(decodeURIComponent(path.slice('/npm/'.length))) : undefined;
    if (doc !== undefined) return void res.writeHead(200, { 'content-type': 'application/json' }).end(doc);
    res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // A native-style dependency: its install script builds the file its main loads (as better-sqlite3 or keytar do).
  publish(
    'fake-native',
    { main: 'index.js', scripts: { install: 'node build.js' } },
    { 'index.js': "module.exports = require('./build/Release/binding.js');\n", 'build.js': '// builds build/Release\n' },
  );
  publish('sqlite-mcp', { bin: { 'sqlite-mcp': 'x.js' }, dependencies: { 'fake-native': '1.0.0' } }, { 'x.js': "require('fake-native');\n" });
  // A package built by node-gyp from its binding.gyp (npm runs `node-gyp rebuild` for it with no script named).
  publish('gyp-mcp', { bin: { 'gyp-mcp': 'x.js' } }, { 'x.js': "require('./build/Release/addon.node');\n", 'binding.gyp': '{"targets":[]}' });
  publish('plain-mcp', { bin: { 'plain-mcp': 'x.js' } }, { 'x.js': '// a server\n' });
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((ok) => server?.close(ok));
  if (dir) await rm(dir, { recursive: true, force: true });
});

const install = (name: string) => installNpmPackage({ dir: join(dir, 'packages'), registry: `${base}/npm/`, timeoutMs: 5000 }, name, '1.0.0');

it('refuses a package whose dependency needs its install script, naming both, and leaves nothing', async () => {
  await expect(install('sqlite-mcp')).rejects.toMatchObject({
    kind: 'refused',
    message:
      "sqlite-mcp@1.0.0 (through its dependency fake-native) needs its install script to run as it is installed, and Spillway does not run install scripts, so it was not added: it would fail at every start. Ask the server's publisher for a version without one, or run it yourself and add it as a command.",
  });
  expect((await readdir(join(dir, 'packages'))).filter((n) => !n.startsWith('.npm-cache'))).toEqual([]);
}, 60_000);

it('refuses a package built by node-gyp from its binding.gyp', async () => {
  await expect(install('gyp-mcp')).rejects.toMatchObject({
    kind: 'refused',
    message: expect.stringMatching(/^gyp-mcp@1\.0\.0 needs (its install script|a native build \(node-gyp\)) to run as it is installed/),
  });
}, 60_000);

it('installs a package that needs no install script', async () => {
  await expect(install('plain-mcp')).resolves.toMatchObject({ name: 'plain-mcp', version: '1.0.0' });
}, 60_000);
