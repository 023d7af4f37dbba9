/**
 * The PII lists of a tool's policy through a running hub (audit s19): a kind of personal data named twice
 * is refused, naming the field and the kind, and nothing is saved; a key of a custom pattern that this
 * version does not know (a newer Spillway's) is named at start and stays in config.json across saves, as
 * unknown keys elsewhere in a policy do, while the window sending one (a typo) is refused, naming the field.
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
const off = { type: 'http', url: 'http://127.0.0.1:1/mcp', enabled: false };
const emp = { name: 'emp', pattern: 'EMP-\\d{6}' };
const config = {
  version: 1,
  settings: { port: 0 },
  servers: { web: off, other: off },
  policies: { tools: { web: { t: { pii: { types: ['email'], custom: [{ ...emp, futureCustom: 'kept' }] } } } } },
};

describe('the PII lists of a tool policy', () => {
  it('refuse a kind named twice, naming the field and the kind, and save nothing', async () => {
    hub = await startTestHub(config);
    const before = await configText(hub);
    const twice = await hub.api('policies.setTool', { server: 'web', tool: 't', policy: { pii: { types: ['email', 'phone', 'email'] } } });
    expect(twice).toMatchObject({ ok: false, code: 'invalid', field: 'policy.pii.types.2' });
    expect(twice.message).toContain('"email" twice');
    expect(await configText(hub)).toBe(before);
    // Each kind once is still taken.
    expect((await hub.api('policies.setTool', { server: 'web', tool: 't', policy: { pii: { types: ['email', 'phone'] } } })).ok).toBe(true);
  });

  it('name an unknown key of a custom pattern at start and keep it in the file while the pattern stays', async () => {
    hub = await startTestHub(config);
    const warnings = hub.hub.events
      .recent()
      .flatMap((e) => (e.type === 'log' && e.level === 'warn' && e.message.includes('does not know') ? [e.message] : []));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('policies.tools.web.t.pii.custom.0.futureCustom');
    expect(hub.hub.config.policies.tools.web!.t!.pii!.custom).toEqual([emp]);

    // A save of something else, then the window saving that tool's policy with the pattern unchanged.
    expect((await hub.api('policies.setServer', { server: 'other', policy: { exposure: 'dispatch' } })).ok).toBe(true);
    expect(JSON.parse(await configText(hub)).policies.tools.web.t.pii.custom).toEqual([{ ...emp, futureCustom: 'kept' }]);
    const policy = { pii: { types: ['email', 'phone'], custom: [emp] } };
    expect((await hub.api('policies.setTool', { server: 'web', tool: 't', policy })).ok).toBe(true);
    expect(JSON.parse(await configText(hub)).policies.tools.web.t.pii.custom).toEqual([{ ...emp, futureCustom: 'kept' }]);

    // The window sending such a key is a typo: refused, naming it, and the file keeps what it had.
    const typo = await hub.api('policies.setTool', { server: 'web', tool: 't', policy: { pii: { types: [], custom: [{ ...emp, flgs: 'i' }] } } });
    expect(typo).toMatchObject({ ok: false, code: 'invalid', field: 'policy.pii.custom.0' });
    expect(typo.message).toContain('"flgs" is not a known setting here');
    expect(JSON.parse(await configText(hub)).policies.tools.web.t.pii.custom).toEqual([{ ...emp, futureCustom: 'kept' }]);
  });
});
