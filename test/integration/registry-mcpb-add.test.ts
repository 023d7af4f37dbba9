/**
 * MCPB bundles and remotes added from the catalog through the control API (issue 16). A tiny local
 * registry speaking the MCP Registry API (v0.1) serves entries whose bundles it also serves: a real bundle
 * (test/support/mcpb-bundle.ts) is downloaded, checked against its published SHA-256, unpacked into
 * <data>/bundles and run with the hub's own runtime with no node on its PATH, its tools listed. A checksum
 * mismatch leaves nothing behind and adds nothing; an entry without fileSha256 is not offered; an
 * interrupted install is cleaned at start. A bundle's own settings (user_config) are fields of its form,
 * which downloads the bundle to read them: a required sensitive one and a bounded number are checked,
 * reach the server (its stderr, masked where secret) and the secret stays out of config.json. Update
 * switches a bundle to the registry's newer one; the old folder stays (the previous install a failed update goes back to). At the next start, the bundles no
 * server uses (one downloaded for a form never sent, a removed server's) are gone, a disabled server's stays. A remote entry becomes an HTTP (or SSE) upstream, and one that answers 401 (the OAuth fixture)
 * ends in needs-sign-in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HubEvent } from '../../shared/events.js';
import type { AppHub } from '../../electron/core/app/app-hub.js';
import { OWN_RUNTIME_COMMAND } from '../../electron/core/registry/install/own-runtime.js';
import { fixture, NODE } from '../support/hub-harness.js';
import { buildFixtureBundle, sha256 } from '../support/mcpb-bundle.js';
import { buildSettingsBundle } from '../support/registry-settings-bundle.js';
import { spawnUntil, type Started } from '../support/processes.js';
import { callApi, hubToolNames, nextHubEvent, startRegistryHub, waitForStatus as statusOf } from '../support/registry-hub.js';

const NS = 'io.github.spillway-tests';
let work: string;
let dataDir: string;
let registry: Server;
let base: string;
let oauth: Started;
let app: AppHub;
const files = new Map<string, Buffer>();
const entries = new Map<string, unknown>();
const bundles = () => join(dataDir, 'bundles');

/** A server.json entry with one mcpb package. */
function bundleEntry(name: string, file: string, fileSha256: string | undefined) {
  const pkg = { registryType: 'mcpb', identifier: `${base}/files/${file}`, version: '1.0.0', transport: { type: 'stdio' } };
  return {
    server: {
      name: `${NS}/${name}`,
      description: `The fixture server as a bundle (${name}).`,
      version: '1.0.0',
      packages: [fileSha256 ? { ...pkg, fileSha256 } : pkg],
    },
    _meta: { 'io.modelcontextprotocol.registry/official': { status: 'active', isLatest: true } },
  };
}

const api = <T>(method: string, body: unknown = {}) => callApi<T>(app, method, body);
const waitForStatus = (id: string, status: string) => statusOf(app, id, status);
/** The next event that matches (subscribed before the action that causes it). */
const nextEvent = (match: (e: HubEvent) => boolean, what: string) => nextHubEvent(app, match, what);
const toolNames = () => hubToolNames(app, 'registry-mcpb-add-test');

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'spillway-mcpb-add-'));
  // A variable holding a path into the bundle's folder, which Update must move to the new folder.
  const env = { FIXTURE_GREETING: '${user_config.greeting}', FIXTURE_DATA: '${__dirname}/data' };
  files.set('fixture.mcpb', await buildFixtureBundle(work, { env }));
  // The env-echo server prints the two variables it was given to stderr as it starts.
  files.set('needs-key.mcpb', await buildSettingsBundle(work, 'needs-key'));
  files.set('fixture-1.1.mcpb', await buildFixtureBundle(work, { version: '1.1.0', env }));
  files.set(
    'key-in-args.mcpb',
    await buildFixtureBundle(work, {
      name: 'key-in-args',
      args: ['--token', '${user_config.token}'],
      userConfig: { token: { type: 'string', title: 'Token', description: 'Passed on the command line', required: true, sensitive: true } },
    }),
  );
  registry = createServer((req, res) => {
    const url = new URL(req.url ?? '/', base);
    const file = url.pathname.startsWith('/files/') ? files.get(url.pathname.slice('/files/'.length)) : undefined;
    if (file) return void res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': file.length }).end(file);
    const m = /^\/v0\.1\/servers\/([^/]+)\/versions\/latest$/.exec(url.pathname);
    const entry = m ? entries.get(decodeURIComponent(m[1])) : undefined;
    if (!entry) return void res.writeHead(404, { 'content-type': 'application/problem+json' }).end(JSON.stringify({ detail: 'Server not found' }));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(entry));
  });
  await new Promise<void>((ok) => registry.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(registry.address() as AddressInfo).port}`;
  oauth = await spawnUntil(NODE, [fixture('oauth-server.mjs')], /^(http:\/\/127\.0\.0\.1:\d+\/mcp)$/m);
  const good = sha256(files.get('fixture.mcpb')!);
  for (const e of [
    bundleEntry('fixture-bundle', 'fixture.mcpb', good),
    bundleEntry('bad-sum', 'fixture.mcpb', sha256(Buffer.from('another file'))),
    bundleEntry('needs-key', 'needs-key.mcpb', sha256(files.get('needs-key.mcpb')!)),
    bundleEntry('no-sum', 'fixture.mcpb', undefined),
    bundleEntry('key-in-args', 'key-in-args.mcpb', sha256(files.get('key-in-args.mcpb')!)),
    bundleEntry('form-only', 'fixture.mcpb', good),
  ])
    entries.set(e.server.name, e);
  entries.set(`${NS}/signed-remote`, {
    server: {
      name: `${NS}/signed-remote`,
      description: 'A remote server that asks for sign-in.',
      version: '1.0.0',
      remotes: [
        { type: 'streamable-http', url: oauth.match[1] },
        { type: 'sse', url: `${base}/sse` },
      ],
    },
  });

  dataDir = join(work, 'data');
  // What a bundle install interrupted half-way left before this start.
  await mkdir(join(dataDir, 'bundles', '.installing-cut', 'server'), { recursive: true });
  app = await startRegistryHub({ dir: work, registryUrl: base });
}, 120_000);

afterAll(async () => {
  await app?.hub.stop();
  await oauth?.stop();
  await new Promise((ok) => registry?.close(ok));
  if (work) await rm(work, { recursive: true, force: true });
});

const configOnDisk = async () => JSON.parse(await readFile(join(dataDir, 'config.json'), 'utf8')) as { servers: Record<string, unknown> };

describe('MCPB bundles from the catalog', () => {
  it('an install interrupted before this start was cleaned as the hub started', () => {
    expect(existsSync(join(bundles(), '.installing-cut'))).toBe(false);
  });

  it('the detail page says what will run; an entry without its SHA-256 is not offered', async () => {
    const r = await api<{ options: { summary: string; supported: boolean; runtime?: unknown }[] }>('registry.get', { name: `${NS}/fixture-bundle` });
    expect(r.value!.options[0]).toMatchObject({
      supported: true,
      summary:
        "Downloads fixture.mcpb (checked against its published SHA-256) into Spillway's data folder and runs the command its manifest names; the form shows that command before anything runs.",
    });
    expect(r.value!.options[0].runtime).toBeUndefined();
    const none = await api<{ options: { supported: boolean; reason?: string }[] }>('registry.get', { name: `${NS}/no-sum` });
    expect(none.value!.options[0]).toMatchObject({ supported: false, reason: expect.stringMatching(/without its SHA-256 checksum/) });
    expect(await api('registry.add', { name: `${NS}/no-sum`, package: 0 })).toMatchObject({ ok: false, code: 'invalid' });
  });

  it('a checksum mismatch is a plain error: nothing left in bundles/, nothing added to config.json', async () => {
    const r = await api('registry.add', { name: `${NS}/bad-sum`, package: 0 });
    expect(r).toMatchObject({
      ok: false,
      code: 'unavailable',
      message: expect.stringMatching(/does not match its published checksum.*nothing was installed/),
    });
    expect(await readdir(bundles())).toEqual([]);
    expect((await configOnDisk()).servers).toEqual({});
  });

  it('adds the bundle: installed, started with the own runtime (no node on PATH), its tools listed', async () => {
    const r = await api<{ id: string; installed: unknown; summary: string }>('registry.add', { name: `${NS}/fixture-bundle`, package: 0 });
    expect(r.ok).toBe(true);
    expect(r.value).toMatchObject({ id: 'fixture-bundle', installed: { name: 'fixture-bundle', version: '1.0.0' } });
    const folder = join(bundles(), `${NS}+fixture-bundle@1.0.0`);
    // Said from the manifest: the script it runs, on the own runtime, and its variables.
    expect(r.value!.summary).toBe(
      `Downloaded fixture.mcpb (checked against its published SHA-256) into Spillway's data folder. Runs on this computer with Spillway's own runtime: ${join(folder, 'server', 'index.mjs')}, with the variables FIXTURE_GREETING, FIXTURE_DATA set.`,
    );
    expect(await readdir(bundles())).toEqual([`${NS}+fixture-bundle@1.0.0`]);
    const saved = (await configOnDisk()).servers['fixture-bundle'];
    expect(saved).toMatchObject({ type: 'stdio', command: OWN_RUNTIME_COMMAND, args: [join(folder, 'server', 'index.mjs')] });
    await waitForStatus('fixture-bundle', 'ready');
    expect((await toolNames()).some((n) => n.endsWith('add'))).toBe(true);
  }, 120_000);
});

describe("a bundle's own settings", () => {
  const name = `${NS}/needs-key`;
  const folder = () => join(bundles(), `${NS}+needs-key@1.0.0`);
  const SECRET = 'sk-bundle-secret-4711';

  it('the detail page says the form downloads the bundle', async () => {
    const r = await api<{ options: unknown[] }>('registry.get', { name });
    expect(r.value!.options[0]).toMatchObject({ supported: true, bundle: true, installs: { name, version: '1.0.0' } });
  });

  it('the form installs the bundle (logged as npm installs are) and asks for its settings', async () => {
    const installing = nextEvent((e) => e.type === 'log' && e.message === `Installing ${name} 1.0.0…`, 'the install log line');
    const r = await api<{ fields: unknown[]; option: { summary: string } }>('registry.form', { name, package: 0 });
    expect(r.ok).toBe(true);
    await installing;
    expect(existsSync(join(folder(), 'manifest.json'))).toBe(true);
    // What the manifest runs, a secret setting not yet filled masked, the one with a default shown.
    expect(r.value!.option.summary).toBe(
      `Downloaded needs-key.mcpb (checked against its published SHA-256) into Spillway's data folder. Runs on this computer with Spillway's own runtime: ${join(folder(), 'server', 'index.mjs')} --echo FIXTURE_KEY,FIXTURE_LIMIT, with the variables FIXTURE_KEY (secret), FIXTURE_LIMIT set.`,
    );
    expect(r.value!.fields).toEqual([
      {
        key: 'setting:api_key',
        label: 'API key',
        description: 'Your key for the service',
        group: 'settings',
        required: true,
        secret: true,
        input: 'text',
      },
      {
        key: 'setting:limit',
        label: 'Limit',
        description: 'How many at most.',
        group: 'settings',
        required: false,
        secret: false,
        input: 'number',
        default: '5',
        min: 1,
        max: 10,
      },
    ]);
  }, 60_000);

  it('a required setting left empty and a number out of bounds are refused naming the field; nothing added', async () => {
    expect(await api('registry.add', { name, package: 0, values: { 'setting:limit': '7' } })).toMatchObject({
      ok: false,
      code: 'invalid',
      message: 'API key is required',
      field: 'values.setting:api_key',
    });
    expect(await api('registry.add', { name, package: 0, values: { 'setting:api_key': SECRET, 'setting:limit': '11' } })).toMatchObject({
      ok: false,
      message: 'Limit: must be at most 10',
      field: 'values.setting:limit',
    });
    expect((await configOnDisk()).servers['needs-key']).toBeUndefined();
    // Installed by the form, so kept for the next Add.
    expect(existsSync(folder())).toBe(true);
  });

  it('adds with the values: the server gets them, the secret is kept out of config.json', async () => {
    const key = nextEvent((e) => e.type === 'upstream.stderr' && e.server === 'needs-key' && e.line.includes('FIXTURE_KEY='), 'the key line');
    const limit = nextEvent(
      (e) => e.type === 'upstream.stderr' && e.server === 'needs-key' && e.line === 'env-echo-server: FIXTURE_LIMIT=7',
      'the limit line',
    );
    const r = await api<{ id: string; secrets: string }>('registry.add', {
      name,
      package: 0,
      values: { 'setting:api_key': SECRET, 'setting:limit': '7' },
    });
    expect(r).toMatchObject({ ok: true, value: { id: 'needs-key', secrets: 'secret-store' } });
    await waitForStatus('needs-key', 'ready');
    await Promise.all([key, limit]);
    // The hub masks a secret's value wherever the server echoes it: the line shows the value was the one given.
    const keyLine = app.hub.events.recent().find((e) => e.type === 'upstream.stderr' && e.server === 'needs-key' && e.line.includes('FIXTURE_KEY='));
    expect(keyLine).toMatchObject({ line: 'env-echo-server: FIXTURE_KEY=***' });
    const raw = await readFile(join(dataDir, 'config.json'), 'utf8');
    expect(raw).not.toContain(SECRET);
    // Every env value is kept in the secret store (issue 13); the number reached the server as given.
    expect((await configOnDisk()).servers['needs-key']).toMatchObject({ env: { FIXTURE_KEY: '<secret>', FIXTURE_LIMIT: '<secret>' } });
  }, 60_000);
});

describe("a secret in a bundle's command line", () => {
  const TOKEN = 'tok-args-secret-0815';

  it('is kept as a secret, its place in args held by a placeholder; the server starts with it', async () => {
    const r = await api<{ id: string }>('registry.add', { name: `${NS}/key-in-args`, package: 0, values: { 'setting:token': TOKEN } });
    expect(r).toMatchObject({ ok: true, value: { id: 'key-in-args' } });
    await waitForStatus('key-in-args', 'ready');
    expect(await readFile(join(dataDir, 'config.json'), 'utf8')).not.toContain(TOKEN);
    const saved = (await configOnDisk()).servers['key-in-args'] as { args: string[]; env: Record<string, string> };
    expect(saved.args.slice(-2)).toEqual(['--token', '${SPILLWAY_SECRET_ARG_1}']);
    expect(saved.env.SPILLWAY_SECRET_ARG_1).toBe('<secret>');
  }, 60_000);
});

describe('Update for bundles', () => {
  const name = `${NS}/fixture-bundle`;

  it('says when the registry has no newer bundle', async () => {
    const r = await api('registry.installed', { id: 'fixture-bundle' });
    expect(r.value).toEqual({ name, version: '1.0.0', latest: '1.0.0', updateAvailable: false });
  });

  it('installs the newer bundle, switches the server to it and keeps the old folder until the next start', async () => {
    const newer = bundleEntry('fixture-bundle', 'fixture-1.1.mcpb', sha256(files.get('fixture-1.1.mcpb')!));
    newer.server.version = '1.1.0';
    newer.server.packages[0].version = '1.1.0';
    entries.set(name, newer);
    expect((await api('registry.installed', { id: 'fixture-bundle' })).value).toMatchObject({ latest: '1.1.0', updateAvailable: true });
    const detail = await api<{ options: { installed?: unknown }[] }>('registry.get', { name });
    expect(detail.value!.options[0].installed).toEqual([{ id: 'fixture-bundle', version: '1.0.0' }]);

    const ready = nextEvent((e) => e.type === 'upstream.status' && e.server === 'fixture-bundle' && e.status === 'ready', 'ready again');
    const installing = nextEvent((e) => e.type === 'log' && e.message.startsWith(`Installing ${name} 1.1.0`), 'installing');
    const updating = api('registry.update', { id: 'fixture-bundle' });
    // A change made while the new bundle downloads is kept: the update replaces only the paths.
    await installing;
    expect(await api('policies.setServer', { server: 'fixture-bundle', policy: { timeoutMs: 4321 } })).toMatchObject({ ok: true });
    const r = await updating;
    expect(r.value).toEqual({ id: 'fixture-bundle', name, version: '1.1.0', previous: '1.0.0', updated: true });
    expect(app.hub.config.servers['fixture-bundle']).toMatchObject({ timeoutMs: 4321 });
    await ready;
    const folder = join(bundles(), `${NS}+fixture-bundle@1.1.0`);
    expect((await configOnDisk()).servers['fixture-bundle']).toMatchObject({ args: [join(folder, 'server', 'index.mjs')] });
    expect(existsSync(join(bundles(), `${NS}+fixture-bundle@1.0.0`))).toBe(true);
    // The stored variable that held the old folder's path now holds the new one's.
    expect(await app.hub.secretStore.get('fixture-bundle', 'env:FIXTURE_DATA')).toBe(join(folder, 'data'));
    expect((await api('registry.installed', { id: 'fixture-bundle' })).value).toMatchObject({ version: '1.1.0', updateAvailable: false });
  }, 120_000);
});

describe('remote entries from the catalog', () => {
  it('a streamable-http remote that answers 401 ends in needs-sign-in', async () => {
    const r = await api<{ id: string; summary: string }>('registry.add', { name: `${NS}/signed-remote`, remote: 0, id: 'signed-remote' });
    expect(r.ok).toBe(true);
    expect(r.value!.summary).toBe(`Connects to ${oauth.match[1]} over Streamable HTTP.`);
    expect((await configOnDisk()).servers['signed-remote']).toMatchObject({ type: 'http', url: oauth.match[1] });
    await waitForStatus('signed-remote', 'needs-sign-in');
    const list = await api<{ id: string; status: string; auth?: { state: string } }[]>('upstreams.list');
    expect(list.value!.find((u) => u.id === 'signed-remote')).toMatchObject({ status: 'needs-sign-in', auth: { state: 'needs-sign-in' } });
  }, 60_000);

  it('an SSE remote becomes an SSE upstream', async () => {
    const r = await api<{ id: string }>('registry.add', { name: `${NS}/signed-remote`, remote: 1, id: 'sse-remote' });
    expect(r.ok).toBe(true);
    expect((await configOnDisk()).servers['sse-remote']).toMatchObject({ type: 'sse', url: `${base}/sse` });
  });
});

describe('bundles no server uses, at the next start', () => {
  const folder = (entry: string, version = '1.0.0') => join(bundles(), `${NS}+${entry}@${version}`);

  it("one downloaded for a form never sent and a removed server's are removed; a disabled server's stays", async () => {
    expect(await api('registry.form', { name: `${NS}/form-only`, package: 0 })).toMatchObject({ ok: true });
    expect(existsSync(folder('form-only'))).toBe(true);
    expect(await api('upstreams.remove', { id: 'key-in-args' })).toMatchObject({ ok: true });
    const needsKey = (await configOnDisk()).servers['needs-key'] as object;
    expect(await api('upstreams.update', { id: 'needs-key', config: { ...needsKey, enabled: false } })).toMatchObject({ ok: true });
    // Removed at start only: while this hub runs, a form may still be open.
    expect(existsSync(folder('key-in-args'))).toBe(true);

    await app.hub.stop();
    app = await startRegistryHub({ dir: work, registryUrl: base });
    const removed = (e: HubEvent) => e.type === 'log' && e.message.startsWith('Removed 2 downloaded server packages no server uses');
    if (!app.hub.events.recent().some(removed)) await nextEvent(removed, 'the removal logged');
    expect(existsSync(folder('form-only'))).toBe(false);
    expect(existsSync(folder('key-in-args'))).toBe(false);
    // The version the update replaced stays: it is the previous install an update that does not start goes back to.
    expect(existsSync(folder('fixture-bundle'))).toBe(true);
    expect(existsSync(join(folder('needs-key'), 'manifest.json'))).toBe(true);
    expect(existsSync(join(folder('fixture-bundle', '1.1.0'), 'manifest.json'))).toBe(true);
    // Servers start on first use after a restart: started here, it still runs from its kept folder.
    const ready = nextEvent((e) => e.type === 'upstream.status' && e.server === 'fixture-bundle' && e.status === 'ready', 'ready again');
    expect(await api('upstreams.restart', { id: 'fixture-bundle' })).toMatchObject({ ok: true });
    await ready;
  }, 120_000);
});
