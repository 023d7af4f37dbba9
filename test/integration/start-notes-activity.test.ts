/**
 * What the data folder's stores have to say at start reaches the Activity log: a client-tokens.json that
 * cannot be read (set aside, with what to do), and a keychain that holds this folder's secrets and does not
 * answer (its marker file; a D-Bus address that leads nowhere).
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { AppHub } from '../../electron/core/app/app-hub.js';
import { KEYCHAIN_MARKER_FILE } from '../../electron/core/secrets/keychain-marker.js';
import { createTestAppHub, testPaths } from '../support/hub-harness.js';

let dir: string | undefined;
let running: AppHub | undefined;
afterEach(async () => {
  await running?.hub.stop();
  await running?.releaseFolder();
  running = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A fresh data folder with an empty config, and `files` written into it. */
async function folder(files: Record<string, string>): Promise<ReturnType<typeof testPaths>> {
  dir = await mkdtemp(join(tmpdir(), 'spillway-start-notes-'));
  const paths = testPaths(dir);
  await writeFile(paths.configFile, JSON.stringify({ mcpServers: {} }));
  for (const [name, text] of Object.entries(files)) await writeFile(join(paths.dataDir, name), text);
  return paths;
}

/** The hub's warnings once it has started. */
async function startWarnings(): Promise<string[]> {
  running = await createTestAppHub(dir!);
  await running.hub.start();
  return running.hub.events.recent().flatMap((e) => (e.type === 'log' && e.level === 'warn' ? [e.message] : []));
}

it('tells the Activity log that a damaged tokens file was set aside, and what to do', async () => {
  // A hand edit's trailing comma.
  const paths = await folder({ 'client-tokens.json': '{"cursor": "sw_0123456789abcdef0123456789abcdef",}\n' });
  const told = (await startWarnings()).find((m) => m.includes('client-tokens.json'));
  expect(told).toMatch(/Clients/);
  expect((await readdir(paths.dataDir)).some((name) => name.startsWith('client-tokens.json.corrupt-'))).toBe(true);
}, 60_000);

it("tells the Activity log that the keychain holding this folder's secrets did not answer", async () => {
  await folder({ [KEYCHAIN_MARKER_FILE]: 'note' });
  const bus = process.env.DBUS_SESSION_BUS_ADDRESS;
  process.env.DBUS_SESSION_BUS_ADDRESS = `unix:path=${join(dir!, 'no-bus')}`;
  try {
    const warnings = await startWarnings();
    expect(warnings.find((m) => m.includes('keychain did not answer'))).toMatch(/press Restart/);
  } finally {
    if (bus === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS;
    else process.env.DBUS_SESSION_BUS_ADDRESS = bus;
  }
}, 60_000);
