/**
 * A running hub and config.json keys it does not know (a typo such as "Port", a newer Spillway's
 * setting, a note on a server): a change made in the window keeps them in the file, and the window and
 * the config in force never see them.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub | undefined;
afterEach(async () => {
  await hub?.stop();
  hub = undefined;
});

const onDisk = async (h: TestHub) => JSON.parse(await readFile(join(h.dir, 'config.json'), 'utf8'));

describe('config.json keys the hub does not know', () => {
  it('stay in the file when a setting is changed in the window', async () => {
    hub = await startTestHub({ version: 1, settings: { port: 0, Port: 1234, spill: { quota: 5 } }, servers: {} });
    expect((await hub.api('settings.set', { paused: true })).ok).toBe(true);
    const saved = await onDisk(hub);
    expect(saved.settings).toMatchObject({ paused: true, Port: 1234, spill: { quota: 5 } });
    const shown = await hub.api<Record<string, unknown>>('settings.get');
    expect(shown.ok).toBe(true);
    expect(JSON.stringify(shown.value)).not.toMatch(/"Port"|"quota"/);
  });

  it('are each named once in the log at start, with the key they may stand for', async () => {
    hub = await startTestHub({ version: 1, settings: { port: 0, Port: 1234 }, servers: {} });
    const warnings = hub.hub.events
      .recent()
      .flatMap((e) => (e.type === 'log' && e.level === 'warn' && e.message.includes('does not know') ? [e.message] : []));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/settings\.Port .*did you mean "port"\?/);
  });

  it('stay on a server updated in the window, which neither lists nor sends them back', async () => {
    const web = { type: 'http', url: 'http://127.0.0.1:1/mcp', enabled: false, note: 'mine' };
    hub = await startTestHub({ version: 1, settings: { port: 0 }, servers: { web } });
    const listed = await hub.api<Array<{ id: string; config: Record<string, unknown> }>>('upstreams.list');
    expect(JSON.stringify(listed.value)).not.toContain('mine');
    const update = await hub.api('upstreams.update', { id: 'web', config: { type: 'http', url: 'http://127.0.0.1:2/mcp', enabled: false } });
    expect(update.ok).toBe(true);
    expect((await onDisk(hub)).servers.web).toMatchObject({ url: 'http://127.0.0.1:2/mcp', note: 'mine' });
    expect(Object.keys(hub.hub.config.servers.web!)).not.toContain('note');
  });
});
