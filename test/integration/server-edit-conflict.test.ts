/**
 * Two windows editing one server (audit s16): the second Save, made from a form opened before the first
 * Save, must not undo it (the first window's new address and key were reverted, the key deleted from the
 * store). Each edit sends back the revision upstreams.list showed; a stale one is refused with `conflict`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UpstreamInfo } from '../../shared/api.js';
import { startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub({ version: 1, servers: {} });
});
afterAll(() => hub?.stop());

/** What a window reads when it opens Edit: the server's shown config and its revision. */
const opened = async (id: string) => (await hub.api<UpstreamInfo[]>('upstreams.list')).value!.find((u) => u.id === id)!;
const add = (id: string) =>
  hub.api('upstreams.add', { id, config: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { 'X-Team': 'alpha' }, enabled: false } });

describe('an edit made from a form opened before another save', () => {
  it('is refused with conflict, and the first save stays as it was, its key in the store', async () => {
    await add('w');
    const a = await opened('w'); // window A opens Edit
    const b = await opened('w'); // window B opens Edit
    expect(a.revision).toEqual(expect.any(String));
    const ra = await hub.api('upstreams.update', {
      id: 'w',
      revision: a.revision,
      config: {
        ...a.config,
        url: 'http://127.0.0.1:9/v2/mcp',
        headers: { ...(a.config.type === 'stdio' ? {} : a.config.headers), 'X-Api-Key': 'NEWKEY' },
      },
    });
    expect(ra.ok).toBe(true);
    const rb = await hub.api('upstreams.update', { id: 'w', revision: b.revision, config: { ...b.config, label: 'Work server' } });
    expect(rb).toMatchObject({ ok: false, code: 'conflict', field: 'revision' });
    expect(rb.message).toMatch(/changed after you opened this form.*Reload it to see the change, then make yours again/);
    expect(hub.hub.config.servers.w).toMatchObject({ url: 'http://127.0.0.1:9/v2/mcp', headers: { 'X-Api-Key': expect.any(String) } });
    expect(await hub.hub.secretStore.get('w', 'header:X-Api-Key')).toBe('NEWKEY');

    // B reloads (a new revision) and makes its change again: both changes are kept.
    const reloaded = await opened('w');
    expect(reloaded.revision).not.toBe(b.revision);
    const again = await hub.api('upstreams.update', { id: 'w', revision: reloaded.revision, config: { ...reloaded.config, label: 'Work server' } });
    expect(again.ok).toBe(true);
    expect(hub.hub.config.servers.w).toMatchObject({ url: 'http://127.0.0.1:9/v2/mcp', label: 'Work server' });
    expect(await hub.hub.secretStore.get('w', 'header:X-Api-Key')).toBe('NEWKEY');
  });

  it('is refused after a change of a secret value alone (the config file reads the same)', async () => {
    await add('s');
    const a = await opened('s');
    const b = await opened('s');
    const headers = { ...(a.config.type === 'stdio' ? {} : a.config.headers), 'X-Team': 'beta' };
    expect((await hub.api('upstreams.update', { id: 's', revision: a.revision, config: { ...a.config, headers } })).ok).toBe(true);
    const rb = await hub.api('upstreams.update', { id: 's', revision: b.revision, config: { ...b.config, label: 'Other' } });
    expect(rb).toMatchObject({ ok: false, code: 'conflict' });
    expect(await hub.hub.secretStore.get('s', 'header:X-Team')).toBe('beta');
  });

  it('saved again unchanged keeps the revision, and an update without one is saved as sent (the CLI, scripts)', async () => {
    await add('u');
    const a = await opened('u');
    expect((await hub.api('upstreams.update', { id: 'u', revision: a.revision, config: a.config })).ok).toBe(true);
    expect((await opened('u')).revision).toBe(a.revision);
    expect((await hub.api('upstreams.update', { id: 'u', config: { ...a.config, label: 'Scripted' } })).ok).toBe(true);
    expect(hub.hub.config.servers.u?.label).toBe('Scripted');
  });
});

describe('the on/off switch', () => {
  it('changes only enabled: a change saved elsewhere after the list was read stays', async () => {
    await add('t');
    const listed = await opened('t'); // the card's copy
    const edited = await hub.api('upstreams.update', {
      id: 't',
      revision: listed.revision,
      config: { ...listed.config, url: 'http://127.0.0.1:9/v3/mcp' },
    });
    expect(edited.ok).toBe(true);
    expect(await hub.api('upstreams.setEnabled', { id: 't', enabled: false })).toMatchObject({ ok: true, value: { id: 't' } });
    expect(hub.hub.config.servers.t).toMatchObject({ url: 'http://127.0.0.1:9/v3/mcp', enabled: false });
    expect(await hub.api('upstreams.setEnabled', { id: 'nope', enabled: true })).toMatchObject({ ok: false, code: 'not_found' });
  });
});
