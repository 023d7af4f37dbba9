/**
 * config.json and a running hub (issue: hand edits were overwritten). The hub reads the file at start
 * only: a change asked for after the file was edited by hand is refused, with the next step, and the edit
 * stays; a broken edit is never written over. Fields the API does not know are refused, named. The
 * backup of an `mcpServers` file keeps no secret in plain text.
 */
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../support/hub-harness.js';

const hubs: TestHub[] = [];
afterAll(async () => {
  for (const hub of hubs) await hub.stop();
});

async function start(config: unknown): Promise<TestHub> {
  const hub = await startTestHub(config);
  hubs.push(hub);
  return hub;
}

const configPath = (hub: TestHub) => join(hub.dir, 'config.json');
const backups = async (hub: TestHub) => (await readdir(hub.dir)).filter((f) => /^config\.json\..+\.bak$/.test(f));

describe('config.json edited while the hub runs', () => {
  it('refuses the next change instead of dropping a server added by hand, and says what to do', async () => {
    const hub = await start({ version: 1, servers: {} });
    const edited = JSON.parse(await readFile(configPath(hub), 'utf8'));
    edited.servers.handmade = { type: 'http', url: 'http://127.0.0.1:1/mcp', enabled: false };
    const text = JSON.stringify(edited, undefined, 2);
    await writeFile(configPath(hub), text);

    const r = await hub.api('settings.set', { paused: true });
    expect(r).toMatchObject({ ok: false, code: 'unavailable' });
    expect(r.message).toMatch(
      /was changed outside Spillway since Spillway read it.*Restart Spillway to pick up the edit, then make the change again/,
    );
    expect(await readFile(configPath(hub), 'utf8')).toBe(text);
    expect(hub.hub.config.settings.paused).toBe(false);
    const added = await hub.api('upstreams.add', { id: 'other', config: { type: 'http', url: 'http://127.0.0.1:2/mcp', enabled: false } });
    expect(added.ok).toBe(false);
    expect(JSON.parse(await readFile(configPath(hub), 'utf8')).servers).toEqual({ handmade: edited.servers.handmade });
  });

  it('never writes over a file broken by hand, and does not quote it', async () => {
    const hub = await start({ version: 1, servers: {} });
    const broken = '{\n  "version": 1,\n  "servers": { "gh": { "type": "stdio", "command": "x", "env": { "T": ghp_Br0kenS3cret } } }\n}\n';
    await writeFile(configPath(hub), broken);
    const r = await hub.api('settings.set', { paused: true });
    expect(r.ok).toBe(false);
    expect(r.message).toMatch(/can no longer be read \(The config is not valid JSON in .*, at line 3, column \d+: /);
    expect(r.message).not.toContain('Br0ken');
    expect(await readFile(configPath(hub), 'utf8')).toBe(broken);
  });

  it("saves its own changes one after another (its writes are not taken for someone else's)", async () => {
    const hub = await start({ version: 1, servers: {} });
    expect((await hub.api('settings.set', { paused: true })).ok).toBe(true);
    expect((await hub.api('upstreams.add', { id: 'later', config: { type: 'http', url: 'http://127.0.0.1:2/mcp', enabled: false } })).ok).toBe(true);
    expect((await hub.api('settings.set', { paused: false })).ok).toBe(true);
    const saved = JSON.parse(await readFile(configPath(hub), 'utf8'));
    expect(Object.keys(saved.servers)).toEqual(['later']);
    expect(saved.settings.paused).toBe(false);
  });
});

describe('a change refused after a hand edit leaves the secret store as it was', () => {
  const handEdit = async (hub: TestHub) => {
    const edited = JSON.parse(await readFile(configPath(hub), 'utf8'));
    edited.settings = { ...edited.settings, logRetentionDays: 3 };
    await writeFile(configPath(hub), JSON.stringify(edited, undefined, 2));
  };
  const web = (headers: Record<string, string>) => ({ type: 'http', url: 'http://127.0.0.1:1/mcp', enabled: false, headers });

  it('keeps the old header value when an update is refused (the next start would use the refused one)', async () => {
    const hub = await start({ version: 1, servers: { web: web({ Authorization: 'Bearer OLD-value-1' }) } });
    await handEdit(hub);
    const r = await hub.api('upstreams.update', { id: 'web', config: web({ Authorization: 'Bearer NEW-value-2', 'X-Extra': 'extra-3' }) });
    expect(r).toMatchObject({ ok: false, code: 'unavailable' });
    expect(await hub.hub.secretStore.get('web', 'header:Authorization')).toBe('Bearer OLD-value-1');
    expect(await hub.hub.secretStore.get('web', 'header:X-Extra')).toBeUndefined();
  });

  it('keeps nothing of a server whose add was refused', async () => {
    const hub = await start({ version: 1, servers: {} });
    await handEdit(hub);
    const r = await hub.api('upstreams.add', { id: 'late', config: web({ Authorization: 'Bearer refused-4' }) });
    expect(r).toMatchObject({ ok: false, code: 'unavailable' });
    expect(await hub.hub.secretStore.get('late', 'header:Authorization')).toBeUndefined();
  });

  it('keeps the old compression API key when a settings change is refused', async () => {
    const settings = { compression: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm', apiKey: 'sk-old-key-5' } };
    const hub = await start({ version: 1, servers: {}, settings });
    await handEdit(hub);
    expect(await hub.api('settings.set', { compression: { apiKey: 'sk-new-key-6' } })).toMatchObject({ ok: false, code: 'unavailable' });
    expect(await hub.hub.secretStore.get('(settings)', 'compression:apiKey')).toBe('sk-old-key-5');
    expect(hub.hub.settings.compression.apiKey).toBe('sk-old-key-5');
    expect(await hub.api('settings.set', { compression: { apiKey: '' } })).toMatchObject({ ok: false, code: 'unavailable' });
    expect(await hub.hub.secretStore.get('(settings)', 'compression:apiKey')).toBe('sk-old-key-5');
    expect(hub.hub.settings.compression.apiKey).toBe('sk-old-key-5');
  });
});

describe('server fields the API does not know', () => {
  it('refuses a misspelt field on add and update, naming it, and saves nothing', async () => {
    const hub = await start({ version: 1, servers: { web: { type: 'http', url: 'http://127.0.0.1:1/mcp', enabled: false } } });
    const before = await readFile(configPath(hub), 'utf8');
    const add = await hub.api('upstreams.add', { config: { type: 'http', url: 'http://127.0.0.1:1/mcp', header: { Authorization: 'Bearer zzz' } } });
    expect(add).toMatchObject({ ok: false, code: 'invalid' });
    expect(add.message).toContain('"header" is not a known setting here');
    const update = await hub.api('upstreams.update', { id: 'web', config: { type: 'http', url: 'http://127.0.0.1:1/mcp', enabeld: false } });
    expect(update).toMatchObject({ ok: false, code: 'invalid' });
    expect(update.message).toContain('"enabeld" is not a known setting here');
    expect(await readFile(configPath(hub), 'utf8')).toBe(before);
  });

  it('still starts from a config.json whose server has a field it does not know', async () => {
    const hub = await start({ version: 1, servers: { web: { type: 'http', url: 'http://127.0.0.1:1/mcp', enabled: false, note: 'mine' } } });
    expect(hub.hub.config.servers.web).toMatchObject({ type: 'http', enabled: false });
    const listed = await hub.api<{ id: string }[]>('upstreams.list');
    expect(listed.ok && listed.value!.map((u) => u.id)).toEqual(['web']);
  });
});

describe('an mcpServers file with plain secret values', () => {
  it('is backed up with the values masked, and config.json holds references', async () => {
    const hub = await start({ mcpServers: { gh: { command: 'no-such-binary-x', env: { GITHUB_TOKEN: 'ghp_SUPERSECRET123' }, disabled: true } } });
    expect(await readFile(configPath(hub), 'utf8')).not.toContain('ghp_SUPERSECRET123');
    const [backup, ...more] = await backups(hub);
    expect(more).toEqual([]);
    const text = await readFile(join(hub.dir, backup!), 'utf8');
    expect(text).not.toContain('ghp_SUPERSECRET123');
    expect(JSON.parse(text).mcpServers.gh).toEqual({ command: 'no-such-binary-x', env: { GITHUB_TOKEN: '<secret>' }, disabled: true });
    if (process.platform !== 'win32') expect((await stat(join(hub.dir, backup!))).mode & 0o777).toBe(0o600);
    expect(await hub.hub.secretStore.get('gh', 'env:GITHUB_TOKEN')).toBe('ghp_SUPERSECRET123');
  });
});
