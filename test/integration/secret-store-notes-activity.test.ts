/**
 * What the secret store says at start reaches the Activity log: here, a data folder whose secrets are in
 * the keychain (its marker file) starting where no keychain answers (a D-Bus address that leads nowhere).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { AppHub } from '../../electron/core/app/app-hub.js';
import { KEYCHAIN_MARKER_FILE } from '../../electron/core/secrets/keychain-marker.js';
import { createTestAppHub, testPaths } from '../support/hub-harness.js';

let dir: string | undefined;
let running: AppHub | undefined;
afterAll(async () => {
  await running?.hub.stop();
  await running?.releaseFolder();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it("tells the Activity log that the keychain holding this folder's secrets did not answer", async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-store-notes-'));
  const paths = testPaths(dir);
  await writeFile(paths.configFile, JSON.stringify({ mcpServers: {} }));
  await writeFile(join(paths.dataDir, KEYCHAIN_MARKER_FILE), 'note');
  const bus = process.env.DBUS_SESSION_BUS_ADDRESS;
  process.env.DBUS_SESSION_BUS_ADDRESS = `unix:path=${join(dir, 'no-bus')}`;
  try {
    running = await createTestAppHub(dir);
    await running.hub.start();
  } finally {
    if (bus === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS;
    else process.env.DBUS_SESSION_BUS_ADDRESS = bus;
  }
  const warnings = running.hub.events.recent().flatMap((e) => (e.type === 'log' && e.level === 'warn' ? [e.message] : []));
  expect(warnings.find((m) => m.includes('keychain did not answer'))).toMatch(/press Restart/);
}, 60_000);
