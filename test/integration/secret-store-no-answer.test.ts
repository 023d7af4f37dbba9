/**
 * A keychain that does not answer (a macOS unlock prompt nobody answers, a locked Secret Service) while a
 * change waits on it: changes run one at a time, so without a time limit Pause and every other change
 * would wait behind it for good. The hub's real parts, with a keychain store whose entries never answer.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HubControl } from '../../electron/core/control/hub-control.js';
import { KeychainStore, type KeychainEntryFactory } from '../../electron/core/secrets/keychain-store.js';
import { startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub({ version: 1, servers: {} });
});
afterAll(() => hub?.stop());

const silent: KeychainEntryFactory = () => {
  const never = () => new Promise<never>(() => undefined);
  return { getPassword: never, setPassword: never, deleteCredential: never };
};

it('a change waiting on the keychain gives up in time with the next step, and Pause sent meanwhile is saved', async () => {
  const { hub: core } = hub;
  const control = new HubControl({
    config: () => core.config,
    saveConfig: (next, what) => core.saveConfig(next, what),
    pool: core.pool,
    policy: core.policy,
    refreshCatalog: () => core.refreshCatalog(),
    emit: (event) => core.emit(event),
    secrets: core.events.secrets,
    secretStore: new KeychainStore('Spillway no-answer test', silent, 300),
  });
  const adding = control.addUpstream({
    id: 'web',
    config: { type: 'http', url: 'http://127.0.0.1:1/mcp', enabled: false, headers: { Authorization: 'Bearer waits-on-keychain' } },
  });
  const pausing = control.setSettings({ paused: true });
  await expect(adding).rejects.toMatchObject({
    code: 'unavailable',
    message: expect.stringMatching(/^The system keychain did not answer within .*unlock the keychain, then try again\.$/),
  });
  expect((await pausing).paused).toBe(true);
  const onDisk = JSON.parse(await readFile(join(hub.dir, 'config.json'), 'utf8'));
  expect(onDisk.settings.paused).toBe(true);
  expect(onDisk.servers).toEqual({});
}, 15_000);
