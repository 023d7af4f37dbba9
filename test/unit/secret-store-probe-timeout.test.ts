/** A keychain that never answers the start-up probe (a prompt nobody answers) does not hold the start forever. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { KEYCHAIN_MARKER_FILE } from '../../electron/core/secrets/keychain-marker.js';
import type { KeychainEntryFactory } from '../../electron/core/secrets/keychain-store.js';
import { openSecretStore } from '../../electron/core/secrets/open-secret-store.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-probe-timeout-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Every call waits for ever, as a keychain waiting on an unlock window does. */
const silent: KeychainEntryFactory = () => ({
  getPassword: () => new Promise(() => undefined),
  setPassword: () => new Promise(() => undefined),
  deleteCredential: () => new Promise(() => undefined),
});

it('uses the encrypted file when a keychain that never answered here does not answer the probe in time', async () => {
  const store = await openSecretStore({ dataDir: dir, keychain: silent, probeTimeoutMs: 20, log: () => undefined });
  expect(store.kind).toBe('encrypted-file');
});

it('keeps a folder whose secrets are in the keychain with the keychain, and says so, when the probe is not answered in time', async () => {
  await writeFile(join(dir, KEYCHAIN_MARKER_FILE), 'note');
  const told: string[] = [];
  const store = await openSecretStore({ dataDir: dir, keychain: silent, probeTimeoutMs: 20, log: (m) => told.push(m) });
  expect(store.kind).toBe('keychain');
  expect(told.join('\n')).toMatch(/did not answer/);
});
