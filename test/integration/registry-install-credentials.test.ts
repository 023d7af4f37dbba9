/**
 * An npm registry address with a user name and password or a token in it (a company mirror, audit s19):
 * the install's messages name the registry without them. The registry is a local server that has no
 * packages; the unreachable one a port nothing listens on.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installNpmPackage, latestVersion } from '../../electron/core/registry/install/npm-install.js';

let server: Server;
let port: number;
let closedPort: number;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-install-credentials-'));
  server = createServer((_req, res) => res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}'));
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  port = (server.address() as AddressInfo).port;
  const closed = createServer();
  await new Promise<void>((ok) => closed.listen(0, '127.0.0.1', ok));
  closedPort = (closed.address() as AddressInfo).port;
  await new Promise((ok) => closed.close(ok));
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((ok) => server?.close(ok));
  if (dir) await rm(dir, { recursive: true, force: true });
});

const source = (registry: string) => ({ dir: join(dir, 'packages'), registry, timeoutMs: 5000 });

it('a package the registry does not have: the message names the registry without its password or token', async () => {
  const registry = `http://alice:npmTok3n-SECRET-42@127.0.0.1:${port}/npm/?token=qTOKEN99`;
  const failed = await installNpmPackage(source(registry), 'never-published-pkg', '1.0.0').catch((err: Error) => err);
  expect(failed).toMatchObject({
    kind: 'not_found',
    message: `The npm registry (http://127.0.0.1:${port}/npm/) has no package never-published-pkg@1.0.0. Check the name and version, or the npm registry in use.`,
  });
  const latest = await latestVersion(source(registry), 'never-published-pkg').catch((err: Error) => err);
  expect((latest as Error).message).toContain(`(http://127.0.0.1:${port}/npm/)`);
  for (const text of [(failed as Error).message, (latest as Error).message]) {
    expect(text).not.toMatch(/alice|npmTok3n|qTOKEN99/);
  }
}, 30_000);

it('a registry that cannot be reached: the message names it without the password', async () => {
  const registry = `https://bob:hunter2-PASS@127.0.0.1:${closedPort}/`;
  const failed = await installNpmPackage(source(registry), 'some-pkg', '1.0.0').catch((err: Error) => err);
  expect(failed).toMatchObject({ kind: 'unreachable', message: expect.stringContaining(`npm registry (https://127.0.0.1:${closedPort}/)`) });
  expect((failed as Error).message).not.toMatch(/bob|hunter2/);
}, 30_000);
