/**
 * The secret store through a real hub (issue 15): a server added with env values keeps only references in
 * config.json while its child process gets the values, across a restart; a plain config from before is
 * moved into the store at start (a backup kept); the status names the store. On this machine no keychain
 * runs, so the store is the encrypted file.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SECRET_REF } from '../../shared/config.js';
import type { HubEvent } from '../../shared/events.js';
import type { AppHub } from '../../electron/core/app/app-hub.js';
import { createTestAppHub, fixture, NODE, nodeServer, testPaths } from '../support/hub-harness.js';
import { stderrPrinted } from '../support/hub-runs.js';
import { spawnUntil } from '../support/processes.js';

const PAT = 'ghp_StoreSecret0Value9xyz';
const OPENAI = 'sk-proj-stored-Q7w8e9r0';
const echo = (names: string) => nodeServer(fixture('env-echo-server.mjs'), ['--echo', names]);

let dir: string;
let running: AppHub | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-secret-hub-'));
});
afterEach(async () => {
  await running?.hub.stop();
  running = undefined;
  await rm(dir, { recursive: true, force: true });
});

const paths = () => testPaths(dir);

async function start(config?: unknown): Promise<AppHub> {
  if (config) await writeFile(paths().configFile, JSON.stringify(config, null, 2));
  const app = await createTestAppHub(dir);
  running = app;
  await app.hub.start();
  return app;
}

/** Resolves once the server is ready (started now if it waits for its first use). */
async function ready(app: AppHub, id: string): Promise<void> {
  if (app.hub.pool.get(id)?.status === 'ready') return;
  const seen = new Promise<void>((resolve) => {
    const off = app.hub.events.subscribe((e: HubEvent) => {
      if (e.type === 'upstream.status' && e.server === id && e.status === 'ready') {
        off();
        resolve();
      }
    });
  });
  if (!app.hub.pool.get(id)) await app.control.restartUpstream(id);
  await seen;
}

/** What the child printed of its environment, read from its own stderr (not the masked events). */
const childSaw = (app: AppHub, id: string) => app.hub.pool.get(id)!.stderrTail().join('\n');
const onDisk = async () => readFile(paths().configFile, 'utf8');

describe('the secret store through a real hub', () => {
  it('upstreams.add keeps references in config.json; the child gets the values, also after a restart', async () => {
    let app = await start({ version: 1, servers: {} });
    expect(app.status.report().secrets).toEqual({ store: 'encrypted-file' });
    const { id } = await app.control.addUpstream({
      id: 'gh',
      config: { type: 'stdio', ...echo('GITHUB_PAT,OPENAI_KEY,EMPTY'), env: { GITHUB_PAT: PAT, OPENAI_KEY: OPENAI, EMPTY: '' } },
    });
    const text = await onDisk();
    expect(text).not.toContain(PAT);
    expect(text).not.toContain(OPENAI);
    expect(JSON.parse(text).servers.gh.env).toEqual({ GITHUB_PAT: SECRET_REF, OPENAI_KEY: SECRET_REF, EMPTY: '' });
    await ready(app, id);
    await stderrPrinted(app.hub, id, 'env-echo-server: ready');
    expect(childSaw(app, id)).toContain(`GITHUB_PAT=${PAT}`);
    expect(childSaw(app, id)).toContain(`OPENAI_KEY=${OPENAI}`);
    // The events mask the stored values like any other secret.
    expect(JSON.stringify(app.hub.events.recent())).not.toContain(PAT);

    // A changed value from the edit form: stored, the reference unchanged, the server restarted with it.
    await app.control.updateUpstream({
      id,
      config: { type: 'stdio', ...echo('GITHUB_PAT,OPENAI_KEY'), env: { GITHUB_PAT: '***', OPENAI_KEY: 'sk-proj-new-value-42' } },
    });
    expect(await onDisk()).not.toContain('sk-proj-new-value-42');
    await app.hub.stop();
    running = undefined;

    app = await start();
    await ready(app, id);
    await stderrPrinted(app.hub, id, 'env-echo-server: ready');
    expect(childSaw(app, id)).toContain(`GITHUB_PAT=${PAT}`);
    expect(childSaw(app, id)).toContain('OPENAI_KEY=sk-proj-new-value-42');

    // Removing the server forgets its values.
    await app.control.removeUpstream(id);
    expect(await app.hub.secretStore.get(id, 'env:GITHUB_PAT')).toBeUndefined();
  });

  it('keeps secret arguments out of config.json too (a key after its option, a password in an address); the child gets them', async () => {
    const app = await start({ version: 1, servers: {} });
    const key = 'sk-proj-AbCdEf0123456789XyZ_argkey';
    const url = 'postgres://alice:pw-Arg5ecret@db.example.com/x';
    const args = [fixture('env-echo-server.mjs'), '--echo', 'NONE', '--', '--api-key', key, url, `--token=${PAT}`, '--verbose', '/home/alice/notes'];
    const { id } = await app.control.addUpstream({ id: 'db', config: { type: 'stdio', command: NODE, args, env: {} } });
    const text = await onDisk();
    for (const secret of [key, 'pw-Arg5ecret', PAT]) expect(text).not.toContain(secret);
    const saved = JSON.parse(text).servers.db;
    expect(saved.args).toEqual([
      ...args.slice(0, 5),
      '${SPILLWAY_SECRET_ARG_1}',
      '${SPILLWAY_SECRET_ARG_2}',
      '${SPILLWAY_SECRET_ARG_3}',
      '--verbose',
      '/home/alice/notes',
    ]);
    await ready(app, id);
    await stderrPrinted(app.hub, id, 'env-echo-server: ready');
    for (const arg of ['--api-key', key, url, `--token=${PAT}`, '--verbose', '/home/alice/notes'])
      expect(childSaw(app, id)).toContain(`env-echo-server: arg ${arg}\n`.trimEnd());
  });

  it('moves the plain values of an older config.json into the store at start, a backup kept', async () => {
    const plain = {
      version: 1,
      servers: {
        gh: { type: 'stdio', ...echo('GITHUB_PAT'), env: { GITHUB_PAT: PAT } },
        web: { type: 'http', url: 'http://127.0.0.1:9/mcp', enabled: false, headers: { Authorization: 'Bearer web-secret-123' } },
      },
    };
    const app = await start(plain);
    const text = await onDisk();
    expect(text).not.toContain(PAT);
    expect(text).not.toContain('web-secret-123');
    expect(JSON.parse(text).servers.web.headers).toEqual({ Authorization: SECRET_REF });
    // The copy kept while the file was rewritten is gone: it held the plain values.
    expect((await readdir(dir)).filter((f) => /^config\.json\..+\.bak$/.test(f))).toEqual([]);
    expect(await app.hub.secretStore.get('web', 'header:Authorization')).toBe('Bearer web-secret-123');
    await ready(app, 'gh');
    await stderrPrinted(app.hub, 'gh', 'env-echo-server: ready');
    expect(childSaw(app, 'gh')).toContain(`GITHUB_PAT=${PAT}`);
    expect(app.hub.events.recent().some((e) => e.type === 'log' && /Moved the env and header values of gh, web/.test(e.message))).toBe(true);
  });
  it("keeps a key in a remote server's address in the store: config.json and the list show <secret>, the server gets the key", async () => {
    const KEY = 'mcp-url-key-Z7x6c5v4';
    const web = await spawnUntil(NODE, [fixture('fixture-server.mjs'), '--http', '--port', '0'], /listening on (\S+)/);
    try {
      const app = await start({ version: 1, servers: {} });
      const { id } = await app.control.addUpstream({ id: 'web', config: { type: 'http', url: `${web.match[1]}?api_key=${KEY}&region=eu` } });
      const text = await onDisk();
      expect(text).not.toContain(KEY);
      expect(JSON.parse(text).servers.web.url).toBe(`${web.match[1]}?api_key=${SECRET_REF}&region=eu`);
      expect(await app.hub.secretStore.get(id, 'url:api_key')).toBe(KEY);
      expect(JSON.stringify(app.status.listUpstreams())).not.toContain(KEY);

      // The server was reached at the address with the key in it.
      await ready(app, id);
      const seen = await app.hub.pool.get(id)!.client!.callTool({ name: 'whoami', arguments: {} });
      expect(JSON.parse((seen.content as { text: string }[])[0]!.text).url).toBe(`/mcp?api_key=${KEY}&region=eu`);
      expect(JSON.stringify(app.hub.events.recent())).not.toContain(KEY);

      // Saved again from the form with the address as the list showed it: the key is kept.
      const listed = app.status.listUpstreams().find((u) => u.id === id)!.config as { url: string };
      await app.control.updateUpstream({ id, config: { type: 'http', url: listed.url } });
      expect(await app.hub.secretStore.get(id, 'url:api_key')).toBe(KEY);
      // Removed: the key is forgotten.
      await app.control.removeUpstream(id);
      expect(await app.hub.secretStore.get(id, 'url:api_key')).toBeUndefined();
    } finally {
      await web.stop();
    }
  });

  it('keeps the compression API key in the store: config.json holds a reference, the hub the value', async () => {
    const KEY = 'sk-compress-Q1w2e3r4t5y6';
    let app = await start({ version: 1, servers: {}, settings: { compression: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm', apiKey: KEY } } });
    // A plain key from an older file moved at start.
    expect(await onDisk()).not.toContain(KEY);
    expect(JSON.parse(await onDisk()).settings.compression.apiKey).toBe(SECRET_REF);
    expect(app.hub.settings.compression.apiKey).toBe(KEY);
    expect(app.hub.events.recent().some((e) => e.type === 'log' && /Moved the compression API key/.test(e.message))).toBe(true);

    // A new key from Settings: stored, the file keeps the reference; sent back masked, the key is kept.
    const answer = await app.control.setSettings({ compression: { apiKey: 'sk-compress-new-Z9x8' } });
    expect(answer.compression.apiKey).toBe(SECRET_REF);
    expect(await onDisk()).not.toContain('sk-compress-new-Z9x8');
    expect(app.hub.settings.compression.apiKey).toBe('sk-compress-new-Z9x8');
    await app.control.setSettings({ compression: { apiKey: '***', model: 'm2' } });
    expect(app.hub.settings.compression).toMatchObject({ apiKey: 'sk-compress-new-Z9x8', model: 'm2' });
    await app.hub.stop();
    running = undefined;

    app = await start();
    expect(app.hub.settings.compression.apiKey).toBe('sk-compress-new-Z9x8');
    // Cleared: forgotten by the store too.
    await app.control.setSettings({ compression: { apiKey: '' } });
    expect(app.hub.settings.compression.apiKey).toBeUndefined();
    expect(await app.hub.secretStore.get('(settings)', 'compression:apiKey')).toBeUndefined();
  });
});
