/**
 * A value a part-way move left in secrets.enc (the keychain refused to store it) is still read from the
 * file at a later start where the keychain does not answer: the folder is marked as keeping its secrets in
 * the keychain, but the file holds what the keychain lacks, and nothing else (no stale values).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openSecretStore } from '../../electron/core/secrets/open-secret-store.js';
import { fakeKeychain } from '../support/fake-keychain.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-unmoved-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const quiet = () => undefined;
const fakeKeychainEntry = (up: () => boolean, failWrite: (account: string) => boolean) => fakeKeychain(up, failWrite).entry;

it('a value the move left in secrets.enc is still read at a start where the keychain does not answer', async () => {
  let up = false;
  let failB = false;
  const entry = fakeKeychainEntry(
    () => up,
    (account) => failB && account.includes('B_KEY'),
  );
  const first = await openSecretStore({ dataDir: dir, keychain: entry, log: quiet });
  await first.set('gh', 'env:A_KEY', 'a-value');
  await first.set('gh', 'env:B_KEY', 'b-value');
  up = true;
  failB = true;
  const second = await openSecretStore({ dataDir: dir, keychain: entry, log: quiet });
  expect(await second.get('gh', 'env:B_KEY')).toBe('b-value');

  up = false; // the next start: the keychain is locked
  const third = await openSecretStore({ dataDir: dir, keychain: entry, log: quiet });
  expect(third.kind).toBe('keychain');
  expect(await third.get('gh', 'env:B_KEY')).toBe('b-value');
  expect(third.known()).toContain('b-value');
  // A_KEY moved: the keychain's refusal, with where the secrets are and what to do.
  await expect(third.get('gh', 'env:A_KEY')).rejects.toThrow(/keeps its secrets in the system keychain.*refused to read the secret env:A_KEY/);
  // No new value lands in the file while the keychain refuses.
  await expect(third.set('gh', 'env:B_KEY', 'typed-while-locked')).rejects.toThrow(/keeps its secrets in the system keychain/);
  expect(await third.get('gh', 'env:B_KEY')).toBe('b-value');

  up = true; // unlocked, with room, in the same run: a new value goes to the keychain, and the file's old one is gone
  failB = false;
  await third.set('gh', 'env:B_KEY', 'b-new');
  up = false;
  await expect(third.get('gh', 'env:B_KEY')).rejects.toThrow(/refused to read the secret env:B_KEY/);
});
