/**
 * MCPB bundles (issue 16): a real bundle (test/support/mcpb-bundle.ts: the fixture MCP server bundled with
 * esbuild, packed by the official MCPB packer) served over HTTP, installed (SHA-256 checked, unpacked off the
 * main thread), and run with this process's own runtime: an SDK client lists its tools. A checksum
 * mismatch, a zip leaving its folder and an interrupted install each leave nothing behind.
 */
import { createServer, type Server } from 'node:http';
import { mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zipSync } from 'fflate';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BundleError, installBundle } from '../../electron/core/registry/mcpb/mcpb-bundle.js';
import { BundleInstaller } from '../../electron/core/registry/mcpb/bundle-installer.js';
import { INSTALLING_PREFIX } from '../../electron/core/registry/install/package-folders.js';
import { bundleLaunch } from '../../electron/core/registry/mcpb/mcpb-launch.js';
import { buildFixtureBundle, sha256 as sha } from '../support/mcpb-bundle.js';

let work: string;
let server: Server;
let base: string;
const files = new Map<string, Buffer>();

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'spillway-mcpb-'));
  files.set('/fixture.mcpb', await buildFixtureBundle(work));
  files.set('/escape.mcpb', Buffer.from(zipSync({ 'manifest.json': Buffer.from('{}'), '../escaped.txt': Buffer.from('x') })));
  server = createServer((req, res) => {
    const body = files.get(req.url ?? '');
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length }).end(body);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await new Promise((ok) => server?.close(ok));
  await rm(work, { recursive: true, force: true });
});

describe('MCPB bundles', () => {
  it('installs a bundle whose checksum matches and runs it with the own runtime', async () => {
    const dir = join(work, 'bundles-ok');
    const bundle = await installBundle(dir, { url: `${base}/fixture.mcpb`, sha256: sha(files.get('/fixture.mcpb')!), folder: 'fixture@1.0.0' });
    expect(bundle.manifest.name).toBe('fixture-bundle');
    expect(await readdir(dir)).toEqual(['fixture@1.0.0']);
    const launch = await bundleLaunch(bundle, { command: process.execPath, env: { ELECTRON_RUN_AS_NODE: '1' } });
    expect(launch).toMatchObject({ command: process.execPath, args: [join(bundle.dir, 'server', 'index.mjs')] });
    expect(launch.env).toEqual({ FIXTURE_GREETING: 'hello', ELECTRON_RUN_AS_NODE: '1' });
    const client = new Client({ name: 'mcpb-test', version: '1' });
    await client.connect(
      new StdioClientTransport({ command: launch.command, args: launch.args, env: { ...launch.env, PATH: '' }, stderr: 'ignore' }),
    );
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('add');
      expect(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).toMatchObject({ structuredContent: { sum: 5 } });
    } finally {
      await client.close();
    }
    // Installed once: a second install finds it without downloading.
    expect((await installBundle(dir, { url: `${base}/missing.mcpb`, sha256: 'x', folder: 'fixture@1.0.0' })).dir).toBe(bundle.dir);
  }, 60_000);

  it('refuses a checksum mismatch in plain words, leaving nothing behind', async () => {
    const dir = join(work, 'bundles-bad-sum');
    const wrong = sha(Buffer.from('something else'));
    const err = await installBundle(dir, { url: `${base}/fixture.mcpb`, sha256: wrong, folder: 'fixture@1.0.0' }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(BundleError);
    expect((err as Error).message).toMatch(/does not match its published checksum.*nothing was installed/);
    expect(await readdir(dir)).toEqual([]);
  });

  it('refuses a zip with a file outside its folder, and a download that fails', async () => {
    const dir = join(work, 'bundles-escape');
    const body = files.get('/escape.mcpb')!;
    const err = await installBundle(dir, { url: `${base}/escape.mcpb`, sha256: sha(body), folder: 'evil@1.0.0' }).catch((e: Error) => e);
    expect((err as Error).message).toMatch(/outside its folder/);
    expect(await readdir(dir)).toEqual([]);
    await expect(readFile(join(work, 'escaped.txt'))).rejects.toThrow();
    const gone = await installBundle(dir, { url: `${base}/nothing.mcpb`, sha256: 'ab', folder: 'gone@1.0.0' }).catch((e: Error) => e);
    expect((gone as Error).message).toMatch(/answered 404/);
  });

  it('cleans what an interrupted install left at the next start', async () => {
    const dir = join(work, 'data-cut', 'bundles');
    await mkdir(join(dir, `${INSTALLING_PREFIX}abc`, 'server'), { recursive: true });
    await mkdir(join(dir, 'kept@1.0.0'));
    expect(new BundleInstaller({ dataDir: join(work, 'data-cut') }).cleaned).toEqual([join(dir, `${INSTALLING_PREFIX}abc`)]);
    expect(await readdir(dir)).toEqual(['kept@1.0.0']);
  });
});
