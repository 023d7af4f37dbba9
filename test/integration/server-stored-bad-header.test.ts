/**
 * A server stored with a header a request cannot carry (saved before headers were checked, or written in
 * config.json by hand) fails only its own start: it is still listed, its on/off switch works, and an edit
 * that leaves that header as it is is saved (audit s16 fixes, item 1).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { UpstreamInfo } from '../../shared/api.js';
import { startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub({
    version: 1,
    servers: { old: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { 'X Api Key': 'k' }, enabled: true } },
  });
});
afterAll(() => hub?.stop());

it('the on/off switch turns off a stored server whose header name is not sendable', async () => {
  const r = await hub.api('upstreams.setEnabled', { id: 'old', enabled: false });
  expect(r.ok, r.message).toBe(true);
  expect(hub.hub.config.servers.old!.enabled).toBe(false);
});

it('is listed, and an edit that leaves the header as stored is saved', async () => {
  const listed = await hub.api<UpstreamInfo[]>('upstreams.list');
  expect(listed.ok, listed.message).toBe(true);
  expect((await hub.api('status')).ok).toBe(true);
  const info = listed.value!.find((u) => u.id === 'old')!;
  const r = await hub.api('upstreams.update', { id: 'old', revision: info.revision, config: { ...info.config, label: 'Old one' } });
  expect(r.ok, r.message).toBe(true);
  expect(hub.hub.config.servers.old).toMatchObject({ label: 'Old one', headers: { 'X Api Key': expect.any(String) } });
});

it('refuses, naming it, an edit that changes that header, and a Test', async () => {
  const info = (await hub.api<UpstreamInfo[]>('upstreams.list')).value!.find((u) => u.id === 'old')!;
  const config = { ...info.config, headers: { 'X Api Key': 'new' } };
  const message = 'The header "X Api Key" cannot have a space in its name';
  const r = await hub.api('upstreams.update', { id: 'old', config });
  expect(r).toMatchObject({ ok: false, code: 'invalid', field: 'config.headers.X Api Key' });
  expect(r.message).toContain(message);
  const tested = await hub.api('upstreams.test', { id: 'old', config: info.config });
  expect(tested).toMatchObject({ ok: false, code: 'invalid', field: 'config.headers.X Api Key' });
});

it('is put back as it was by Undo after Remove', async () => {
  expect((await hub.api('upstreams.remove', { id: 'old' })).ok).toBe(true);
  const undo = await hub.api('upstreams.undoRemove', { id: 'old' });
  expect(undo.ok, undo.message).toBe(true);
  expect(hub.hub.config.servers.old).toMatchObject({ headers: { 'X Api Key': expect.any(String) } });
});
