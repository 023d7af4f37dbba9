/**
 * An edit refused because the server was changed since its form was opened does not blame another
 * window: the change may be the server's own on/off switch (audit s16 fixes, item 8).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { UpstreamInfo } from '../../shared/api.js';
import { startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub({ version: 1, servers: { w: { type: 'http', url: 'http://127.0.0.1:9/mcp', enabled: false } } });
});
afterAll(() => hub?.stop());

it('a Save after the same window flipped the switch is not blamed on another window', async () => {
  const form = (await hub.api<UpstreamInfo[]>('upstreams.list')).value!.find((u) => u.id === 'w')!;
  expect((await hub.api('upstreams.setEnabled', { id: 'w', enabled: true })).ok).toBe(true);
  // the form (opened before the switch, holding enabled: false) saves a label
  const r = await hub.api('upstreams.update', { id: 'w', revision: form.revision, config: { ...form.config, label: 'Work' } });
  expect(r.message ?? '').not.toMatch(/another Spillway window/);
});
