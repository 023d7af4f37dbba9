/**
 * Control changes that arrive at the same time (two windows, the UI and the CLI, a double click): each
 * one is kept — none saves over another with the config it read before the other's write finished. And a
 * server removed and added again under the same id while the old process is still stopping keeps the new
 * server's secret values: the removal forgets only what no config refers to any more.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET_REF, parseConfig, type Config } from '../../shared/config.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub({ version: 1, servers: {} });
});
afterAll(() => hub?.stop());

const onDisk = async (): Promise<Config> => parseConfig(await readFile(join(hub.dir, 'config.json'), 'utf8')).config;
/** Sent together, as two windows would: every request starts before any of them has saved. */
const together = (...calls: [string, unknown][]) => Promise.all(calls.map(([method, body]) => hub.dispatcher.dispatch(method, body)));
const off = (extra: Record<string, unknown> = {}) => ({ type: 'http', url: 'http://127.0.0.1:9/mcp', enabled: false, ...extra });

describe('control changes at the same time', () => {
  it('keeps both of two servers added at once, on disk, in the hub and in the pool', async () => {
    const answers = await together(['upstreams.add', { id: 'one', config: off() }], ['upstreams.add', { id: 'two', config: off() }]);
    expect(answers).toEqual([
      { ok: true, value: { id: 'one' } },
      { ok: true, value: { id: 'two' } },
    ]);
    expect(Object.keys((await onDisk()).servers).sort()).toEqual(['one', 'two']);
    expect(Object.keys(hub.hub.config.servers).sort()).toEqual(['one', 'two']);
    expect(hub.hub.pool.has('one') && hub.hub.pool.has('two')).toBe(true);
  });

  it('gives two servers added at once without an id two different ids', async () => {
    const answers = await together(['upstreams.add', { name: 'twin', config: off() }], ['upstreams.add', { name: 'twin', config: off() }]);
    const ids = answers.map((a) => (a.ok ? (a.value as { id: string }).id : a.message));
    expect(new Set(ids).size).toBe(2);
    expect(Object.keys((await onDisk()).servers)).toEqual(expect.arrayContaining(ids));
  });

  it('keeps both of two settings changed at once', async () => {
    const answers = await together(['settings.set', { logRetentionDays: 30 }], ['settings.set', { spill: { previewTokens: 777 } }]);
    expect(answers.map((a) => a.ok)).toEqual([true, true]);
    const { settings } = await onDisk();
    expect([settings.logRetentionDays, settings.spill.previewTokens]).toEqual([30, 777]);
    expect([hub.hub.config.settings.logRetentionDays, hub.hub.config.settings.spill.previewTokens]).toEqual([30, 777]);
  });

  it('keeps a server with a secret and a settings change sent at once', async () => {
    const answers = await together(
      ['upstreams.add', { id: 'three', config: off({ headers: { Authorization: 'Bearer concurrent-abc' } }) }],
      ['settings.set', { paused: true }],
    );
    expect(answers.map((a) => a.ok)).toEqual([true, true]);
    const disk = await onDisk();
    expect(disk.servers.three).toMatchObject({ headers: { Authorization: SECRET_REF } });
    expect(disk.settings.paused).toBe(true);
    expect(hub.hub.config.settings.paused).toBe(true);
    await hub.api('settings.set', { paused: false });
  });

  it('keeps policies, server fields and a removal sent at once', async () => {
    const answers = await together(
      ['policies.setTool', { server: 'one', tool: 'a', policy: { hidden: true } }],
      ['policies.setTool', { server: 'one', tool: 'b', policy: { hidden: true } }],
      ['policies.setServer', { server: 'two', policy: { previewTokens: 300, timeoutMs: 5000 } }],
      ['upstreams.update', { id: 'three', config: off({ url: 'http://127.0.0.1:9/other', headers: { Authorization: '***' } }) }],
      ['upstreams.remove', { id: 'twin' }],
    );
    expect(answers.map((a) => (a.ok ? true : a.message))).toEqual([true, true, true, true, true]);
    const disk = await onDisk();
    expect(Object.keys(disk.policies.tools.one ?? {}).sort()).toEqual(['a', 'b']);
    expect(disk.policies.servers.two).toEqual({ previewTokens: 300 });
    expect(disk.servers.two?.timeoutMs).toBe(5000);
    expect(disk.servers.three).toMatchObject({ url: 'http://127.0.0.1:9/other', headers: { Authorization: SECRET_REF } });
    expect(Object.keys(disk.servers)).not.toContain('twin');
    expect(disk).toEqual(hub.hub.config);
  });
});

describe('one server changed twice at once', () => {
  it('runs what was saved last: the first change, finishing later, does not start its own config', async () => {
    const url = (path: string) => off({ url: `http://127.0.0.1:9/${path}` });
    const answers = await together(
      ['upstreams.update', { id: 'one', config: url('first') }],
      ['upstreams.update', { id: 'one', config: url('second') }],
    );
    expect(answers.map((a) => a.ok)).toEqual([true, true]);
    expect((await onDisk()).servers.one).toMatchObject({ url: 'http://127.0.0.1:9/second' });
    expect(hub.hub.pool.get('one')?.config).toMatchObject({ url: 'http://127.0.0.1:9/second' });
  });
});

describe('remove, then add the same id while the old process is still stopping', () => {
  const server = (token: string) => ({ type: 'stdio', ...nodeServer(fixture('stubborn-server.mjs'), ['--ignore-sigterm']), env: { TOKEN: token } });

  it("keeps the new server's secret and does not wait for the old process", async () => {
    expect((await hub.api('upstreams.add', { id: 's1', config: server('old-value-111') })).ok).toBe(true);
    await hub.waitForStatus('s1', 'ready');
    const saved = hub.waitFor((e) => e.type === 'config.changed' && e.what === 'server s1 removed', 'the removal saved');
    let removalDone = false;
    const removing = hub.api('upstreams.remove', { id: 's1' }).finally(() => (removalDone = true));
    await saved;
    // The old process ignores SIGTERM: it is still stopping while the new one is added.
    expect(await hub.api('upstreams.add', { id: 's1', config: server('new-value-222') })).toEqual({ ok: true, value: { id: 's1' } });
    expect(removalDone).toBe(false);
    expect((await removing).ok).toBe(true);
    expect(await hub.hub.secretStore.get('s1', 'env:TOKEN')).toBe('new-value-222');
    expect(hub.hub.config.servers.s1).toMatchObject({ env: { TOKEN: SECRET_REF } });
  }, 60_000);
});
