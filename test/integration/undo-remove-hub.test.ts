/**
 * Undo for Remove through a real hub: a removed server comes back with upstreams.undoRemove — its config,
 * its secret values (kept in the store again, references in config.json) and its policies — and starts;
 * once only; a server removed longer ago than the undo time, or replaced by a new one of the same name,
 * is refused with the next step.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET_REF } from '../../shared/config.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

const PAT = 'ghp_UndoRemove0Secret9abc';
let hub: TestHub;

beforeAll(async () => {
  hub = await startTestHub({ version: 1, servers: {} });
});
afterAll(async () => {
  await hub?.stop();
});

const configFile = () => join(hub.dir, 'config.json');
const onDisk = async () => JSON.parse(await readFile(configFile(), 'utf8')) as { servers: Record<string, { env?: Record<string, string> }> };
/** What the child printed of its environment (its own stderr, as the hub read it). */
const childSaw = (id: string) => hub.hub.pool.get(id)?.stderrTail().join('\n') ?? '';

describe('Undo after Remove', () => {
  it('puts a removed server back with its secret value, started, and only once', async () => {
    const added = await hub.api('upstreams.add', {
      id: 'gh',
      config: {
        type: 'stdio',
        ...nodeServer(fixture('env-echo-server.mjs'), ['--echo', 'GITHUB_PAT']),
        env: { GITHUB_PAT: PAT },
        startMode: 'always',
      },
    });
    expect(added.ok).toBe(true);
    await hub.waitForStatus('gh', 'ready');
    expect((await hub.api('policies.setTool', { server: 'gh', tool: 'echo', policy: { hidden: true } })).ok).toBe(true);

    const removed = await hub.api<{ removed: boolean; undoable: boolean }>('upstreams.remove', { id: 'gh' });
    expect(removed.value).toEqual({ removed: true, undoable: true });
    expect((await onDisk()).servers.gh).toBeUndefined();
    expect(hub.hub.pool.get('gh')).toBeUndefined();

    const ready = hub.waitForStatus('gh', 'ready');
    const undone = await hub.api<{ id: string }>('upstreams.undoRemove', { id: 'gh' });
    expect(undone.value).toEqual({ id: 'gh' });
    await ready;
    expect(childSaw('gh')).toContain(`GITHUB_PAT=${PAT}`); // the value came back from the store
    const text = await readFile(configFile(), 'utf8');
    expect(text).not.toContain(PAT);
    expect((await onDisk()).servers.gh?.env).toEqual({ GITHUB_PAT: SECRET_REF });
    const policies = await hub.api<{ policies: { tools: Record<string, Record<string, { hidden?: boolean }>> } }>('policies.get');
    expect(policies.value?.policies.tools.gh?.echo?.hidden).toBe(true);

    const again = await hub.api('upstreams.undoRemove', { id: 'gh' });
    expect(again).toMatchObject({ ok: false, code: 'conflict', field: 'id' });
    await hub.api('upstreams.remove', { id: 'gh' });
    await hub.api('upstreams.undoRemove', { id: 'gh' });
    expect(hub.hub.pool.get('gh')).toBeDefined();
  });

  it('refuses a server that was never removed, or whose name was taken again, saying what to do', async () => {
    const never = await hub.api('upstreams.undoRemove', { id: 'nothing' });
    expect(never).toMatchObject({ ok: false, code: 'not_found', field: 'id' });
    expect(never.message).toMatch(/can no longer be put back.*Add it again/);

    const cfg = { type: 'stdio', ...nodeServer(fixture('env-echo-server.mjs')) };
    await hub.api('upstreams.add', { id: 'notes', config: cfg });
    await hub.api('upstreams.remove', { id: 'notes' });
    await hub.api('upstreams.add', { id: 'notes', config: { ...cfg, label: 'Other notes' } });
    const taken = await hub.api('upstreams.undoRemove', { id: 'notes' });
    expect(taken).toMatchObject({ ok: false, code: 'conflict', field: 'id' });
    expect(taken.message).toMatch(/remove or rename it, then press Undo again/);
  });

  it('an Undo refused because config.json was edited by hand stays possible, with the key, once the file is put back', async () => {
    const key = 'Bearer undo-refused-7q';
    const web = { type: 'http', url: 'http://127.0.0.1:1/mcp', enabled: false, headers: { Authorization: key } };
    expect((await hub.api('upstreams.add', { id: 'web', config: web })).ok).toBe(true);
    expect((await hub.api('upstreams.remove', { id: 'web' })).ok).toBe(true);
    const saved = await readFile(configFile(), 'utf8');
    await writeFile(configFile(), saved.replace('"servers": {', '"servers": {\n    "byhand": { "type": "http", "url": "http://127.0.0.1:2/mcp" },'));

    const refused = await hub.api('upstreams.undoRemove', { id: 'web' });
    expect(refused).toMatchObject({ ok: false, code: 'conflict', field: 'id' });
    // Restarting would lose what Undo holds: the advice is to put the file back, not to restart first.
    expect(refused.message).toMatch(/was not put back: config\.json was changed outside Spillway.*put config\.json back as it was, press Undo again/);
    expect(refused.message).not.toMatch(/Restart Spillway to pick up the edit/);
    expect(await hub.hub.secretStore.get('web', 'header:Authorization')).toBeUndefined();

    await writeFile(configFile(), saved);
    expect(await hub.api('upstreams.undoRemove', { id: 'web' })).toEqual({ ok: true, value: { id: 'web' } });
    expect(await hub.hub.secretStore.get('web', 'header:Authorization')).toBe(key);
  });
});
