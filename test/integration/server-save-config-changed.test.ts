/**
 * A save refused because config.json was edited by hand while Spillway runs is answered `unavailable`
 * with its own next step (restart), not `conflict`: an Edit form reads that as a server changed elsewhere
 * and offers a Reload that cannot help (audit s16 fixes, item 5).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { UpstreamInfo } from '../../shared/api.js';
import { startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub({ version: 1, servers: { w: { type: 'http', url: 'http://127.0.0.1:9/mcp', enabled: false } } });
});
afterAll(() => hub?.stop());

it('a save refused for a hand-edited config.json is not answered with the revision-conflict code', async () => {
  const info = (await hub.api<UpstreamInfo[]>('upstreams.list')).value!.find((u) => u.id === 'w')!;
  const file = join(hub.dir, 'config.json');
  const cfg = JSON.parse(await readFile(file, 'utf8'));
  cfg.servers.z = { type: 'http', url: 'http://127.0.0.1:9/z', enabled: false };
  await writeFile(file, JSON.stringify(cfg, null, 2));
  const r = await hub.api('upstreams.update', { id: 'w', revision: info.revision, config: { ...info.config, label: 'M' } });
  expect(r.ok).toBe(false);
  expect(r.code).not.toBe('conflict');
  expect(r).toMatchObject({ code: 'unavailable' });
  expect(r.message).toMatch(/changed outside Spillway.*Restart Spillway to pick up the edit, then make the change again/);
});
