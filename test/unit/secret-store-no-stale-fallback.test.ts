/**
 * While secrets.enc stays behind the keychain (a move into it that failed part-way), the file answers only
 * for values the keychain lacks. A value replaced since (written to the keychain) must never come back as
 * its old value from the file when the keychain stops answering, in this run or after a restart: a server
 * would start with a replaced, perhaps revoked, key. The keychain's refusal is the answer then.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { EncryptedFileStore, SECRETS_FILE } from '../../electron/core/secrets/encrypted-file-store.js';
import { openSecretStore } from '../../electron/core/secrets/open-secret-store.js';
import { fakeKeychain } from '../support/fake-keychain.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-stale-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const quiet = () => undefined;
const fakeKeychainEntry = (up: () => boolean, failWrite: (account: string) => boolean) => fakeKeychain(up, failWrite).entry;

/** A folder whose secrets.enc holds A_KEY and B_KEY, and a keychain that answers but cannot store B_KEY. */
async function partWayMove() {
  const state = { up: false, failB: false };
  const entry = fakeKeychainEntry(
    () => state.up,
    (account) => state.failB && account.includes('B_KEY'),
  );
  const first = await openSecretStore({ dataDir: dir, keychain: entry, log: quiet });
  await first.set('gh', 'env:A_KEY', 'old-revoked-A');
  await first.set('gh', 'env:B_KEY', 'b');
  state.up = true;
  state.failB = true;
  return { state, entry };
}

it('a key replaced after a part-way move is refused, not answered with its old value, when the keychain stops answering', async () => {
  const { state, entry } = await partWayMove();
  const store = await openSecretStore({ dataDir: dir, keychain: entry, log: quiet });
  await store.set('gh', 'env:A_KEY', 'new-A');
  expect(await store.get('gh', 'env:A_KEY')).toBe('new-A');
  state.up = false;
  await expect(store.get('gh', 'env:A_KEY')).rejects.toThrow(/system keychain refused to read the secret env:A_KEY of gh/);
  // The value only the file holds is still read from it.
  expect(await store.get('gh', 'env:B_KEY')).toBe('b');
});

it('nor after a restart where the keychain does not answer', async () => {
  const { state, entry } = await partWayMove();
  const store = await openSecretStore({ dataDir: dir, keychain: entry, log: quiet });
  await store.set('gh', 'env:A_KEY', 'new-A');
  state.up = false;
  const locked = await openSecretStore({ dataDir: dir, keychain: entry, log: quiet });
  await expect(locked.get('gh', 'env:A_KEY')).rejects.toThrow(/keeps its secrets in the system keychain/);
  expect(await locked.get('gh', 'env:B_KEY')).toBe('b');
});

it('secrets.enc keeps only what the keychain lacks; a value the keychain held otherwise stays in a retired copy', async () => {
  const state = { up: true, failB: false };
  const entry = fakeKeychainEntry(
    () => state.up,
    (account) => state.failB && account.includes('B_KEY'),
  );
  // Entered again at a start with the keychain, while an older Spillway's secrets.enc holds its old value.
  await (await openSecretStore({ dataDir: dir, keychain: entry, log: quiet })).set('gh', 'env:A_KEY', 'entered-again-A');
  const file = await EncryptedFileStore.open(dir);
  await file.set('gh', 'env:A_KEY', 'old-A');
  await file.set('gh', 'env:B_KEY', 'b');
  await file.set('gh', 'env:C_KEY', 'c');
  state.failB = true;
  const logged: string[] = [];
  const store = await openSecretStore({ dataDir: dir, keychain: entry, log: (message) => void logged.push(message) });
  expect(await store.get('gh', 'env:A_KEY')).toBe('entered-again-A');
  state.up = false;
  await expect(store.get('gh', 'env:A_KEY')).rejects.toThrow(/refused to read/);
  expect((await EncryptedFileStore.open(dir)).entries().map((e) => e.name)).toEqual(['env:B_KEY', 'env:C_KEY']);
  const retired = (await readdir(dir)).find((name) => name.startsWith(`${SECRETS_FILE}.moved-`))!;
  expect(logged.join('\n')).toContain(`the file's other values of them stay in ${retired}`);
});
