/**
 * A running hub and keys under settings.policy and policies it does not know (a newer Spillway's
 * settings): it starts, names each once in the log, neither shows nor applies them, and keeps them in
 * the file when the window saves that same tool's or server's policy or the global switches. A typo in
 * a policy the window sends is still refused, naming the field, and nothing is saved.
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

const configText = (h: TestHub) => readFile(join(h.dir, 'config.json'), 'utf8');

const config = {
  version: 1,
  settings: { port: 0, policy: { pinning: false, futurePolicy: 'a' } },
  servers: { web: { type: 'http', url: 'http://127.0.0.1:1/mcp', enabled: false } },
  policies: {
    futurePol: 'b',
    servers: { web: { exposure: 'dispatch', futureSrv: 'c' } },
    tools: { web: { t: { description: 'x', futureTool: 'd', pii: { types: ['email'], futurePii: 'e' } } } },
  },
};

describe('policy keys in config.json the hub does not know', () => {
  it('are named at start, not shown, and stay in the file when the window saves those policies', async () => {
    hub = await startTestHub(config);
    const warnings = hub.hub.events
      .recent()
      .flatMap((e) => (e.type === 'log' && e.level === 'warn' && e.message.includes('does not know') ? [e.message] : []));
    expect(warnings).toHaveLength(5);
    expect(hub.hub.config.policies.tools.web!.t).toEqual({ description: 'x', pii: { types: ['email'] } });

    const shown = await hub.api<{ policies: { tools: Record<string, Record<string, object>> } }>('policies.get');
    expect(shown.ok).toBe(true);
    expect(JSON.stringify(shown.value)).not.toMatch(/future/);

    // The window sends back the tool's policy as policies.get showed it, with the user's edit.
    const held = shown.value!.policies.tools.web!.t!;
    expect((await hub.api('policies.setTool', { server: 'web', tool: 't', policy: { ...held, description: 'y' } })).ok).toBe(true);
    expect((await hub.api('policies.setServer', { server: 'web', policy: { exposure: 'direct' } })).ok).toBe(true);
    expect((await hub.api('policies.setDefaults', { pinning: true })).ok).toBe(true);

    const saved = JSON.parse(await configText(hub));
    expect(saved.settings.policy).toMatchObject({ pinning: true, futurePolicy: 'a' });
    expect(saved.policies).toEqual({
      futurePol: 'b',
      servers: { web: { exposure: 'direct', futureSrv: 'c' } },
      tools: { web: { t: { description: 'y', futureTool: 'd', pii: { types: ['email'], futurePii: 'e' } } } },
    });
  });

  it('do not let a typo in a policy sent by the window through: it is refused, naming the field', async () => {
    hub = await startTestHub(config);
    const before = await configText(hub);
    const tool = await hub.api('policies.setTool', { server: 'web', tool: 't', policy: { descripton: 'y' } });
    expect(tool).toMatchObject({ ok: false, code: 'invalid' });
    expect(tool.message).toContain('"descripton" is not a known setting here');
    const server = await hub.api('policies.setServer', { server: 'web', policy: { exposur: 'direct' } });
    expect(server).toMatchObject({ ok: false, code: 'invalid' });
    expect(server.message).toContain('"exposur" is not a known setting here');
    const defaults = await hub.api('policies.setDefaults', { pinnig: true });
    expect(defaults).toMatchObject({ ok: false, code: 'invalid' });
    expect(defaults.message).toContain('"pinnig" is not a known setting here');
    expect(await configText(hub)).toBe(before);
  });
});
