/**
 * MCPB bundles (issue 16): a real bundle (test/support/mcpb-bundle.ts: the fixture MCP server bundled with
 * esbuild, packed by the official MCPB packer) served over HTTP, installed (SHA-256 checked, unpacked off the
 * main thread), and run with this process's own runtime: an SDK client lists its tools. A checksum
 * mismatch, a zip leaving its folder and an interrupted install each leave nothing behind.
 */
import { createServer, type Server } from 'node:http';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zipSync } from 'fflate';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BundleError, installBundle } from '../../electron/core/registry/mcpb/mcpb-bundle.js';
import { BundleInstaller, bundleFolderName } from '../../electron/core/registry/mcpb/bundle-installer.js';
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
    if (req.url === '/stall.mcpb') {
      // Headers and two bytes, then nothing: the connection stays open.
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return void res.write('PK');
    }
    if (req.url === '/drip.mcpb') {
      // A byte every 20 ms, forever: never idle, never done.
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const drip = setInterval(() => res.write('x'), 20);
      return void res.on('close', () => clearInterval(drip));
    }
    const body = files.get(req.url ?? '');
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length }).end(body);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  server?.closeAllConnections();
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

  it('a download that stalls after its headers, or drips forever, is cancelled with the next step; nothing left', async () => {
    const dir = join(work, 'bundles-slow');
    const limits = { idleMs: 300, totalMs: 1500 };
    const install = (file: string) =>
      installBundle(dir, { url: `${base}/${file}`, sha256: 'a'.repeat(64), folder: `${file}@1.0.0` }, fetch, limits).catch((e: Error) => e);
    const stalled = await install('stall.mcpb');
    expect(stalled).toBeInstanceOf(BundleError);
    expect((stalled as Error).message).toMatch(
      /stopped: nothing arrived for 0\.3 seconds.*nothing was installed\. Check the internet connection and try again/,
    );
    const dripped = await install('drip.mcpb');
    expect((dripped as Error).message).toMatch(/took longer than 1\.5 seconds, so it was cancelled and nothing was installed\. Try again/);
    expect(await readdir(dir)).toEqual([]);
  }, 10_000);

  it('never installs into, reuses or removes a folder outside its bundles folder', async () => {
    const data = join(work, 'data-outside');
    const bundles = new BundleInstaller({ dataDir: data });
    // A folder with a valid manifest beside the bundles folder: reusing it would run it unchecked.
    const outside = join(data, 'planted');
    await mkdir(outside, { recursive: true });
    await writeFile(
      join(outside, 'manifest.json'),
      JSON.stringify({
        manifest_version: '0.3',
        name: 'p',
        version: '1.0.0',
        description: 'd',
        author: { name: 'a' },
        server: { type: 'node', entry_point: 'x.js', mcp_config: { command: 'node', args: ['x.js'] } },
      }),
    );
    const body = files.get('/fixture.mcpb')!;
    const climb = { name: 'io.github.x/y', version: '../../planted', url: `${base}/fixture.mcpb`, sha256: sha(body) };
    expect(() => bundleFolderName(climb)).toThrow(/not a plain version number/);
    await expect(bundles.install(climb)).rejects.toThrow(/not a plain version number/);
    await expect(installBundle(bundles.dir, { url: climb.url, sha256: climb.sha256, folder: '../planted' })).rejects.toThrow(
      /would leave the bundles folder/,
    );
    // A sibling whose name starts like the bundles folder's is not inside it.
    const sibling = `${bundles.dir}-other`;
    await mkdir(sibling, { recursive: true });
    await bundles.remove({ dir: sibling });
    await bundles.remove({ dir: bundles.dir });
    expect(existsSync(sibling)).toBe(true);
    expect(existsSync(join(outside, 'manifest.json'))).toBe(true);
  });
});
