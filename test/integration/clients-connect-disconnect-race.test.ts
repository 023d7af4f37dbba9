/**
 * Connect and Disconnect of one app at once (the window and the CLI, or two clicks) must not leave the app an
 * entry holding a revoked token (audit s17, connect item 6): Disconnect revoked the token even when it had
 * removed nothing, after Connect had made it and while Connect was writing it. Now one app's changes run
 * one at a time, and Disconnect revokes the token only when it took an entry out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startTestHub, type TestHub } from '../support/hub-harness.js';

let home: string;
let hub: TestHub;
const file = () => join(home, '.gemini', 'settings.json');
const stateOf = async (id: string) => (await hub.api<{ id: string; state: string }[]>('clients.list')).value!.find((c) => c.id === id)!.state;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'spillway-connect-race-'));
  await mkdir(join(home, '.gemini'), { recursive: true });
  hub = await startTestHub({ version: 1 }, { clientOs: { home, platform: 'linux', env: { HOME: home } }, port: await freePort() });
});
afterAll(async () => {
  await hub?.stop();
  await rm(home, { recursive: true, force: true });
});

describe('one app connected and disconnected at once', () => {
  it('ends connected with a working token, or disconnected: never with a revoked one', async () => {
    for (let round = 0; round < 10; round++) {
      await writeFile(file(), '{\n  "theme": "x"\n}\n');
      // Every other round from connected: Disconnect then takes an entry out (and revokes) while Connect writes one.
      if (round % 2 === 1) expect((await hub.api('clients.connect', { id: 'gemini-cli' })).ok).toBe(true);
      const [on, off] = await Promise.all([hub.api('clients.connect', { id: 'gemini-cli' }), hub.api('clients.disconnect', { id: 'gemini-cli' })]);
      expect(on.ok && off.ok).toBe(true);
      // It was 'stale' (the entry's token revoked: Gemini CLI gets 401).
      expect(['current', 'absent']).toContain(await stateOf('gemini-cli'));
    }
  });

  it('a Disconnect that removes nothing leaves the token working', async () => {
    await writeFile(file(), '{\n  "theme": "x"\n}\n');
    expect((await hub.api('clients.connect', { id: 'gemini-cli' })).ok).toBe(true);
    const connected = await readFile(file(), 'utf8');
    // The app took the entry out by itself, and the user presses Disconnect anyway.
    await writeFile(file(), '{\n  "theme": "x"\n}\n');
    expect(await hub.api('clients.disconnect', { id: 'gemini-cli' })).toMatchObject({ ok: true, value: { changed: false } });
    // The entry the app still holds (and writes back) works.
    await writeFile(file(), connected);
    expect(await stateOf('gemini-cli')).toBe('current');
  });
});
