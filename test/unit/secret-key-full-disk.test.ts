/**
 * The encrypted file store's key, secrets.key, written when the first secret is saved: a disk that fills
 * up as it is written must leave no key at all (never an empty or short one, which would refuse every later
 * save), and an empty key an older version left beside no secrets.enc counts as none. The full disk is
 * played by node:fs/promises wrapped: while `full`, files are created but take no bytes (ENOSPC), as a
 * real full disk does.
 */
import type { FileHandle } from 'node:fs/promises';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EncryptedFileStore, SECRETS_FILE, SECRETS_KEY_FILE } from '../../electron/core/secrets/encrypted-file-store.js';

const disk = vi.hoisted(() => ({ full: false }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  const noSpace = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  const open: typeof real.open = async (...args) => {
    const handle = await real.open(...args);
    if (!disk.full) return handle;
    // The file exists now; its bytes find no room.
    const full: Partial<FileHandle> = { write: async () => Promise.reject(noSpace()), writeFile: async () => Promise.reject(noSpace()) };
    return Object.assign(handle, full);
  };
  const writeFileOnFullDisk: typeof real.writeFile = async (path, data, options) => {
    if (!disk.full) return real.writeFile(path, data, options);
    await real.writeFile(path, '', options);
    throw noSpace();
  };
  return { ...real, default: { ...real, open, writeFile: writeFileOnFullDisk }, open, writeFile: writeFileOnFullDisk };
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-key-disk-'));
  disk.full = false;
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const keySize = () =>
  stat(join(dir, SECRETS_KEY_FILE)).then(
    (s) => s.size,
    () => undefined,
  );

describe('secrets.key and a full disk', () => {
  it('a first save on a full disk fails and leaves no key; once there is room, saving works', async () => {
    const store = await EncryptedFileStore.open(dir);
    disk.full = true;
    await expect(store.set('gh', 'env:TOKEN', 'ghp_first-4711')).rejects.toMatchObject({ code: 'ENOSPC' });
    disk.full = false;
    // Nothing, or a whole key: never a short one.
    expect([undefined, 32]).toContain(await keySize());
    await store.set('gh', 'env:TOKEN', 'ghp_second-4711');
    const again = await EncryptedFileStore.open(dir);
    expect(await again.get('gh', 'env:TOKEN')).toBe('ghp_second-4711');
    // A store opened after the failure works too.
    await again.set('gh', 'env:OTHER', 'v-123456');
    expect(await (await EncryptedFileStore.open(dir)).get('gh', 'env:OTHER')).toBe('v-123456');
  });

  it('an empty secrets.key with no secrets.enc (an older version on a full disk) is replaced on the next save', async () => {
    await writeFile(join(dir, SECRETS_KEY_FILE), '');
    const store = await EncryptedFileStore.open(dir);
    await store.set('gh', 'env:TOKEN', 'ghp_after-empty-key');
    expect(await keySize()).toBe(32);
    expect(await (await EncryptedFileStore.open(dir)).get('gh', 'env:TOKEN')).toBe('ghp_after-empty-key');
  });

  it('an empty secrets.key beside a secrets.enc is still refused (its values cannot be read without their key)', async () => {
    const store = await EncryptedFileStore.open(dir);
    await store.set('gh', 'env:TOKEN', 'ghp_kept-4711');
    await writeFile(join(dir, SECRETS_KEY_FILE), '');
    await expect(EncryptedFileStore.open(dir)).rejects.toThrow(/wrong length/);
    expect((await readFile(join(dir, SECRETS_FILE), 'utf8')).length).toBeGreaterThan(0);
  });

  it('a key another process placed first is used, never written over', async () => {
    const first = await EncryptedFileStore.open(dir);
    const second = await EncryptedFileStore.open(dir);
    await first.set('a', 'env:X', 'value-one-4711');
    const key = await readFile(join(dir, SECRETS_KEY_FILE));
    await second.set('b', 'env:Y', 'value-two-4711');
    expect(await readFile(join(dir, SECRETS_KEY_FILE))).toEqual(key);
    expect(await (await EncryptedFileStore.open(dir)).get('b', 'env:Y')).toBe('value-two-4711');
  });
});
