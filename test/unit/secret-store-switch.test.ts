/**
 * The secret store between starts (audit s16, upgrade): the keychain is probed at every start, and a data
 * folder's secrets must not split between it and secrets.enc. Secrets saved while no keychain answered
 * (an older install, `spillway serve` over SSH, a locked keyring) move into the keychain at the first start
 * where it answers, each write checked, and the file is retired, not lost; a folder whose secrets are in
 * the keychain keeps it at a start where it does not answer and says so, instead of an empty secrets.enc.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigFile } from '../../electron/core/files/config-file.js';
import { maskConfigSecrets } from '../../electron/core/secrets/mask-config-secrets.js';
import { migrateConfigSecrets } from '../../electron/core/secrets/migrate-config-secrets.js';
import { SettingsSecrets } from '../../electron/core/secrets/settings-secrets.js';
import { EncryptedFileStore, SECRETS_FILE, SECRETS_KEY_FILE } from '../../electron/core/secrets/encrypted-file-store.js';
import { KEYCHAIN_MARKER_FILE } from '../../electron/core/secrets/keychain-marker.js';
import { fakeKeychain } from '../support/fake-keychain.js';
import { openSecretStore } from '../../electron/core/secrets/open-secret-store.js';
import { SecretStoreError } from '../../electron/core/secrets/secret-store.js';

const PAT = 'ghp_value_saved_without_keychain';
const KEY = 'sk-compression-key-0815';

let dir: string;
let logged: string[];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-switch-'));
  logged = [];
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const log = (message: string) => void logged.push(message);

describe('secrets saved in secrets.enc, then a start where the keychain answers', () => {
  it('are found there: moved into the keychain, the file retired (still encrypted), the names logged', async () => {
    let up = false;
    const { entry, items, accounts } = fakeKeychain(() => up);
    const first = await openSecretStore({ dataDir: dir, keychain: entry, log });
    expect(first.kind).toBe('encrypted-file');
    await first.set('gh', 'env:GITHUB_PAT', PAT);
    await first.set('(settings)', 'compression:apiKey', KEY);

    up = true; // the next start: the Secret Service runs (installed, unlocked, or reachable this time)
    const second = await openSecretStore({ dataDir: dir, keychain: entry, log });
    expect(second.kind).toBe('keychain');
    expect(await second.get('gh', 'env:GITHUB_PAT')).toBe(PAT);
    expect(await second.get('(settings)', 'compression:apiKey')).toBe(KEY);
    expect(accounts()).toEqual(['(settings)/compression:apiKey', 'gh/env:GITHUB_PAT']);
    expect([...items.values()].sort()).toEqual([PAT, KEY].sort());

    const files = await readdir(dir);
    expect(files).not.toContain(SECRETS_FILE);
    const retired = files.find((name) => name.startsWith(`${SECRETS_FILE}.moved-`));
    expect(retired).toMatch(/^secrets\.enc\.moved-\d{8}T\d{6}Z$/);
    expect(files).toContain(SECRETS_KEY_FILE);
    const text = await readFile(join(dir, retired!), 'utf8');
    expect(text).not.toContain(PAT);
    expect(text).not.toContain(KEY);

    expect(logged.join('\n')).toMatch(
      /Moved the secrets env:GITHUB_PAT of gh, compression:apiKey of \(settings\) from secrets\.enc into the system keychain/,
    );
    for (const message of logged) {
      expect(message).not.toContain(PAT);
      expect(message).not.toContain(KEY);
    }

    // A third start finds nothing more to move, and the values where they are.
    logged = [];
    const third = await openSecretStore({ dataDir: dir, keychain: entry, log });
    expect(await third.get('gh', 'env:GITHUB_PAT')).toBe(PAT);
    expect(logged).toEqual([]);
  });

  it('a write that fails midway loses nothing: the file stays and is read for the rest, the log says why, the next start moves the rest', async () => {
    const file = await EncryptedFileStore.open(dir);
    await file.set('gh', 'env:GITHUB_PAT', PAT);
    await file.set('web', 'header:Authorization', 'Bearer web-token-42');
    await file.set('(settings)', 'compression:apiKey', KEY);
    let full = true;
    const { entry, accounts } = fakeKeychain(
      () => true,
      (account) => full && account === 'web/header:Authorization',
    );

    const store = await openSecretStore({ dataDir: dir, keychain: entry, log });
    expect(store.kind).toBe('keychain');
    expect(await readdir(dir)).toContain(SECRETS_FILE);
    expect(accounts()).toEqual(['gh/env:GITHUB_PAT']); // the file's order: gh, then web failed, so not the key
    expect(await store.get('gh', 'env:GITHUB_PAT')).toBe(PAT);
    expect(await store.get('web', 'header:Authorization')).toBe('Bearer web-token-42');
    expect(await store.get('(settings)', 'compression:apiKey')).toBe(KEY);
    expect(store.known()).toEqual(expect.arrayContaining([PAT, 'Bearer web-token-42', KEY]));
    expect(logged.join('\n')).toMatch(/could not move every secret from secrets\.enc .*no space.*reads what the keychain lacks from secrets\.enc/);
    for (const message of logged) expect(message).not.toContain('web-token-42');

    // Meanwhile: a new value wins over the file's, and a value forgotten stays forgotten.
    await store.set('gh', 'env:GITHUB_PAT', 'ghp_newer_value');
    expect(await store.get('gh', 'env:GITHUB_PAT')).toBe('ghp_newer_value');
    await store.delete('(settings)', 'compression:apiKey');
    expect(await store.get('(settings)', 'compression:apiKey')).toBeUndefined();

    full = false;
    logged = [];
    const next = await openSecretStore({ dataDir: dir, keychain: entry, log });
    expect(accounts()).toEqual(['gh/env:GITHUB_PAT', 'web/header:Authorization']);
    expect(await next.get('web', 'header:Authorization')).toBe('Bearer web-token-42');
    expect(await next.get('gh', 'env:GITHUB_PAT')).toBe('ghp_newer_value');
    expect(await next.get('(settings)', 'compression:apiKey')).toBeUndefined();
    expect(await readdir(dir)).not.toContain(SECRETS_FILE);
  });

  it("a value the keychain already holds under the same name is kept, the file's copy stays in the retired file", async () => {
    const { entry } = fakeKeychain(() => true);
    const keychainStart = await openSecretStore({ dataDir: dir, keychain: entry, log });
    await keychainStart.set('gh', 'env:GITHUB_PAT', 'ghp_entered_again');
    // An older Spillway, at a start without the keychain, wrote secrets.enc (this one keeps the keychain then).
    await (await EncryptedFileStore.open(dir)).set('gh', 'env:GITHUB_PAT', PAT);

    const store = await openSecretStore({ dataDir: dir, keychain: entry, log });
    expect(await store.get('gh', 'env:GITHUB_PAT')).toBe('ghp_entered_again');
    const retired = (await readdir(dir)).find((name) => name.startsWith(`${SECRETS_FILE}.moved-`))!;
    expect(logged.join('\n')).toContain(`Kept the keychain's own values of env:GITHUB_PAT of gh; the file's other values of them stay in ${retired}`);
  });

  it('a secrets.enc that cannot be read is left as it is, with the reason logged', async () => {
    await (await EncryptedFileStore.open(dir)).set('gh', 'env:GITHUB_PAT', PAT);
    await rm(join(dir, SECRETS_KEY_FILE));
    const { entry } = fakeKeychain(() => true);
    const store = await openSecretStore({ dataDir: dir, keychain: entry, log });
    expect(store.kind).toBe('keychain');
    expect(await readdir(dir)).toContain(SECRETS_FILE);
    expect(logged.join('\n')).toMatch(/were not moved into the system keychain, and the file is left as it is: .*its key secrets\.key is missing/);
  });
});

describe('secrets in the keychain, then a start where it does not answer', () => {
  it('keeps the keychain and says so plainly, instead of switching to an empty secrets.enc', async () => {
    let up = true;
    const { entry } = fakeKeychain(() => up);
    const first = await openSecretStore({ dataDir: dir, keychain: entry, log });
    await first.set('gh', 'env:GITHUB_PAT', 'ghp_value_in_keychain');
    const marker = await readFile(join(dir, KEYCHAIN_MARKER_FILE), 'utf8');
    expect(marker).toMatch(/in the system keychain/);
    expect(marker).not.toContain('ghp_value_in_keychain');

    up = false; // the next start: keychain locked, or the D-Bus session not reachable
    const second = await openSecretStore({ dataDir: dir, keychain: entry, log });
    expect(second.kind).toBe('keychain');
    expect(logged.join('\n')).toMatch(/The system keychain did not answer when Spillway started, and this data folder keeps its secrets there/);
    const err = await second.get('gh', 'env:GITHUB_PAT').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SecretStoreError);
    expect((err as Error).message).toMatch(
      /^This data folder keeps its secrets in the system keychain, which did not answer when Spillway started\. The system keychain refused to read the secret env:GITHUB_PAT of gh .*Unlock the keychain or allow Spillway access, then try again\. \(.*remove .*secrets-in-keychain\.txt, restart Spillway and enter them again\.\)$/,
    );
    // A value typed now does not land in a file apart from the others.
    await expect(second.set('web', 'header:Authorization', 'Bearer typed-now')).rejects.toThrow(/keeps its secrets in the system keychain/);
    expect(await readdir(dir)).not.toContain(SECRETS_FILE);

    // Unlocked while Spillway runs: Restart on the server reads the value.
    up = true;
    expect(await second.get('gh', 'env:GITHUB_PAT')).toBe('ghp_value_in_keychain');
  });

  it('a folder that never had the keychain keeps using secrets.enc, unmarked', async () => {
    const { entry } = fakeKeychain(() => false);
    const store = await openSecretStore({ dataDir: dir, keychain: entry, log });
    expect(store.kind).toBe('encrypted-file');
    await store.set('gh', 'env:GITHUB_PAT', PAT);
    expect(await (await openSecretStore({ dataDir: dir, keychain: entry, log })).get('gh', 'env:GITHUB_PAT')).toBe(PAT);
    expect(await readdir(dir)).not.toContain(KEYCHAIN_MARKER_FILE);
    expect(logged).toEqual([]);
  });

  it('plain values left in config.json stay there (the servers start with them) rather than stop the hub from starting', async () => {
    let up = true;
    const { entry } = fakeKeychain(() => up);
    await openSecretStore({ dataDir: dir, keychain: entry, log });
    const path = join(dir, 'config.json');
    const plain = { version: 1, servers: { gh: { type: 'stdio', command: 'gh-mcp', env: { GITHUB_PAT: PAT } } } };
    await writeFile(path, JSON.stringify(plain));

    up = false;
    const store = await openSecretStore({ dataDir: dir, keychain: entry, log });
    const configFile = new ConfigFile(path, { maskSecrets: maskConfigSecrets });
    await configFile.load();
    const moved = await migrateConfigSecrets(configFile, store, new SettingsSecrets(store));
    expect(moved).toMatchObject({ servers: [], apiKey: false, refused: expect.stringMatching(/keeps its secrets in the system keychain/) });
    expect(JSON.parse(await readFile(path, 'utf8')).servers.gh.env).toEqual({ GITHUB_PAT: PAT });

    up = true; // a later start moves them
    const later = await openSecretStore({ dataDir: dir, keychain: entry, log });
    expect((await migrateConfigSecrets(configFile, later, new SettingsSecrets(later))).servers).toEqual(['gh']);
    expect(await later.get('gh', 'env:GITHUB_PAT')).toBe(PAT);
  });
});
