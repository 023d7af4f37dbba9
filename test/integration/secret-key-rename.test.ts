/**
 * Renaming an env variable in the edit form, its value still shown masked: the stored value goes with it
 * (the store holds it under the new name, the server starts with it), never the mask. A masked value under
 * a new name that stands for nothing stored is refused, naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET_REF } from '../../shared/config.js';
import type { HubEvent } from '../../shared/events.js';
import { fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

// Shorter than the values masked in text, so the server's stderr shows which value it got.
const SHORT = 'k2val';
const LONG = 'renamed-value-31x';

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub({ version: 1, servers: {} });
});
afterAll(() => hub?.stop());

type Listed = { id: string; config: { env: Record<string, string>; args: string[] } };
const listed = async (id: string) => (await hub.api<Listed[]>('upstreams.list')).value!.find((u) => u.id === id)!.config;

describe('renaming a variable whose value is shown masked', () => {
  it('keeps the stored value under the new name, and the server starts with it', async () => {
    const echo = fixture('env-echo-server.mjs');
    const added = await hub.api('upstreams.add', { id: 'a', config: { type: 'stdio', ...nodeServer(echo), env: { K1: LONG, K2: SHORT } } });
    expect(added.ok).toBe(true);
    await hub.waitForStatus('a', 'ready');
    const shown = await listed('a');
    expect(shown.env).toEqual({ K1: '***', K2: '***' });
    const printed = (e: HubEvent) => e.type === 'upstream.stderr' && e.server === 'a' && e.line.includes('K3=');
    const line = hub.waitFor(printed, 'the K3 line of the restarted server');
    const updated = await hub.api('upstreams.update', {
      id: 'a',
      config: { ...shown, args: [echo, '--echo', 'K3'], env: { K1: shown.env.K1, K3: shown.env.K2 } },
    });
    expect(updated).toMatchObject({ ok: true });
    expect(hub.hub.config.servers.a).toMatchObject({ env: { K1: SECRET_REF, K3: SECRET_REF } });
    expect(await hub.hub.secretStore.get('a', 'env:K3')).toBe(SHORT);
    expect(await hub.hub.secretStore.get('a', 'env:K1')).toBe(LONG);
    expect(await line).toMatchObject({ line: `env-echo-server: K3=${SHORT}` });
    // Test of the same edit (sent again as the list showed it before) uses the stored value too.
    const tested = await hub.api<{ ok: boolean; stderrTail: string[] }>('upstreams.test', {
      id: 'a',
      config: { ...(await listed('a')), args: [echo, '--echo', 'K4'], env: { K1: '***', K4: '***' } },
    });
    expect(tested.value?.stderrTail).toContain(`env-echo-server: K4=${SHORT}`);
  });

  it('refuses a masked value under a new name when no one variable was renamed, and changes nothing', async () => {
    const before = await listed('a');
    const answer = await hub.api('upstreams.update', { id: 'a', config: { ...before, env: { ...before.env, K5: '***' } } });
    expect(answer).toMatchObject({ ok: false, code: 'invalid', field: 'config.env.K5' });
    expect(answer.message).toMatch(/K5.*type its value/);
    expect(await hub.hub.secretStore.get('a', 'env:K5')).toBeUndefined();
    expect(hub.hub.config.servers.a).toMatchObject({ env: { K1: SECRET_REF, K3: SECRET_REF } });
  });
});
