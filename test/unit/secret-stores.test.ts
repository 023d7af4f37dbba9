/**
 * The secret store's backends (issue 15): the encrypted file (round trip, 0600 modes, a changed file or
 * a wrong key refused with a clear error), the probe choosing the keychain or falling back to the file,
 * and the keychain backend itself where a keychain runs.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EncryptedFileStore, SECRETS_FILE, SECRETS_KEY_FILE } from '../../electron/core/secrets/encrypted-file-store.js';
import { KeychainStore, keyringEntry, type KeychainEntryFactory } from '../../electron/core/secrets/keychain-store.js';
import { keychainWorks, openSecretStore } from '../../electron/core/secrets/open-secret-store.js';
import { SecretStoreError } from '../../electron/core/secrets/secret-store.js';
import { PendingSignIns } from '../../electron/core/oauth/pending-sign-ins.js';
import { UpstreamOAuthProvider } from '../../electron/core/oauth/upstream-oauth-provider.js';

const VALUE = 'ghp_file-store-secret-4711';
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-secrets-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** An in-memory keychain, or one that refuses everything as a machine without a keychain service does. */
function fakeKeychain(works: boolean): { entry: KeychainEntryFactory; items: Map<string, string> } {
  const items = new Map<string, string>();
  const refuse = async (): Promise<never> => {
    throw new Error("Couldn't access platform storage: AccessDenied");
  };
  const entry: KeychainEntryFactory = (service, account) => {
    const key = `${service}|${account}`;
    return works
      ? {
          getPassword: async () => items.get(key) ?? null,
          setPassword: async (value) => void items.set(key, value),
          deleteCredential: async () => items.delete(key),
        }
      : { getPassword: refuse, setPassword: refuse, deleteCredential: refuse };
  };
  return { entry, items };
}

describe('the encrypted file store', () => {
  it('keeps values across opens, encrypted, in 0600 files', async () => {
    const store = await EncryptedFileStore.open(dir);
    expect(await store.get('gh', 'env:GITHUB_PAT')).toBeUndefined();
    await store.set('gh', 'env:GITHUB_PAT', VALUE);
    await store.set('web', 'header:Authorization', 'Bearer other-value-99');
    expect(store.known()).toEqual([VALUE, 'Bearer other-value-99']);

    const text = await readFile(join(dir, SECRETS_FILE), 'utf8');
    expect(text).not.toContain(VALUE);
    expect(text).not.toContain('GITHUB_PAT');
    if (process.platform !== 'win32') {
      expect((await stat(join(dir, SECRETS_FILE))).mode & 0o777).toBe(0o600);
      expect((await stat(join(dir, SECRETS_KEY_FILE))).mode & 0o777).toBe(0o600);
    }

    const again = await EncryptedFileStore.open(dir);
    expect(await again.get('gh', 'env:GITHUB_PAT')).toBe(VALUE);
    await again.delete('gh', 'env:GITHUB_PAT');
    await again.delete('gh', 'env:NEVER_SET');
    expect(await (await EncryptedFileStore.open(dir)).get('gh', 'env:GITHUB_PAT')).toBeUndefined();
    expect(await (await EncryptedFileStore.open(dir)).get('web', 'header:Authorization')).toBe('Bearer other-value-99');
  });

  it('refuses a changed file with a clear error naming the next step', async () => {
    const store = await EncryptedFileStore.open(dir);
    await store.set('gh', 'env:GITHUB_PAT', VALUE);
    const sealed = JSON.parse(await readFile(join(dir, SECRETS_FILE), 'utf8')) as { data: string };
    const data = Buffer.from(sealed.data, 'base64');
    data[0] ^= 1;
    await writeFile(join(dir, SECRETS_FILE), JSON.stringify({ ...sealed, data: data.toString('base64') }));
    const err = await EncryptedFileStore.open(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SecretStoreError);
    expect((err as Error).message).toMatch(/secrets\.enc cannot be read: it was changed outside Spillway.*Restore it.*or remove both/);
  });

  it('refuses a file whose key is another or missing', async () => {
    await (await EncryptedFileStore.open(dir)).set('gh', 'env:GITHUB_PAT', VALUE);
    await writeFile(join(dir, SECRETS_KEY_FILE), Buffer.alloc(32, 7));
    await expect(EncryptedFileStore.open(dir)).rejects.toThrow(/secrets\.key is not the key it was written with/);
    await rm(join(dir, SECRETS_KEY_FILE));
    await expect(EncryptedFileStore.open(dir)).rejects.toThrow(/its key secrets\.key is missing/);
    await writeFile(join(dir, SECRETS_FILE), 'not json');
    await expect(EncryptedFileStore.open(dir)).rejects.toThrow(SecretStoreError);
  });
});

describe('choosing the store', () => {
  it('falls back to the encrypted file when the keychain refuses', async () => {
    const store = await openSecretStore({ dataDir: dir, keychain: fakeKeychain(false).entry });
    expect(store.kind).toBe('encrypted-file');
  });

  it('takes the keychain when it answers, one service per data folder, the probe entry removed', async () => {
    const { entry, items } = fakeKeychain(true);
    const store = await openSecretStore({ dataDir: dir, keychain: entry });
    expect(store.kind).toBe('keychain');
    expect(items.size).toBe(0);
    await store.set('gh', 'env:GITHUB_PAT', VALUE);
    expect([...items.keys()]).toEqual([expect.stringMatching(/^Spillway [^|]+\|gh\/env:GITHUB_PAT$/)]);
    expect(await store.get('gh', 'env:GITHUB_PAT')).toBe(VALUE);
    await store.delete('gh', 'env:GITHUB_PAT');
    expect(items.size).toBe(0);
  });

  it('on this machine: the real probe decides, and the file is used where no keychain answers', async () => {
    const real = await keychainWorks(keyringEntry, `Spillway probe test ${process.pid}`);
    const store = await openSecretStore({ dataDir: dir });
    expect(store.kind).toBe(real ? 'keychain' : 'encrypted-file');
  });
});

describe('a keychain that does not answer (a prompt nobody answers, a locked keyring)', () => {
  const silent: KeychainEntryFactory = () => {
    const never = () => new Promise<never>(() => undefined);
    return { getPassword: never, setPassword: never, deleteCredential: never };
  };

  it('gives up after its time limit with a plain error that names the keychain and the next step', async () => {
    const store = new KeychainStore('Spillway silent test', silent, 50);
    for (const call of [() => store.set('gh', 'env:T', VALUE), () => store.get('gh', 'env:T'), () => store.delete('gh', 'env:T')]) {
      const err = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SecretStoreError);
      expect((err as Error).message).toMatch(
        /^The system keychain did not answer within \d+ seconds when Spillway asked it to (store|read|forget) the secret env:T of gh\. .*answer that window or unlock the keychain, then try again\.$/,
      );
    }
  });
});

/**
 * Windows Credential Manager as keyring-rs drives it: the value is kept as UTF-16 and anything over 2560
 * bytes (1280 characters) is refused with keyring-rs's own message; a missing entry is an error.
 */
function windowsKeychain(): { entry: KeychainEntryFactory; items: Map<string, string> } {
  const items = new Map<string, string>();
  const entry: KeychainEntryFactory = (service, account) => {
    const key = `${service}|${account}`;
    return {
      getPassword: async () => items.get(key) ?? null,
      setPassword: async (value) => {
        if (value.length * 2 > 2560) throw new Error("Attribute 'password' is longer than platform limit of 2560 chars");
        items.set(key, value);
      },
      deleteCredential: async () => {
        if (!items.delete(key)) throw new Error('No matching entry found in secure storage');
        return true;
      },
    };
  };
  return { entry, items };
}

/** A JWT-shaped token of about `chars` characters (Entra ID, Keycloak and Google tokens run 1 to 3 KB). */
const jwt = (chars: number, seed: string) => `eyJhbGciOiJSUzI1NiJ9.${seed.repeat(Math.ceil(chars / seed.length)).slice(0, chars)}.c2lnbmF0dXJl`;

describe('long values in a keychain that holds 1280 characters per entry (Windows Credential Manager)', () => {
  const service = 'Spillway long-values';
  const accounts = (items: Map<string, string>) => [...items.keys()].map((k) => k.slice(service.length + 1)).sort();

  it('keeps a sign-in token set of several KB, and a long bearer header, and reads them back whole', async () => {
    const { entry, items } = windowsKeychain();
    expect(await keychainWorks(entry, service)).toBe(true); // the probe passes, so this keychain is the store
    const store = new KeychainStore(service, entry);
    const provider = new UpstreamOAuthProvider({
      serverId: 'work-sharepoint',
      serverUrl: 'https://mcp.example.com/mcp',
      store,
      pending: new PendingSignIns(),
      redirectUrl: () => 'http://127.0.0.1:4242/oauth/callback',
      onAuthorizationUrl: () => undefined,
    });
    const tokens = {
      access_token: jwt(1900, 'AcCeSs'),
      id_token: jwt(1200, 'IdToKeN'),
      refresh_token: jwt(900, 'ReFrEsH'),
      token_type: 'Bearer',
      expires_in: 3599,
    };
    await provider.saveTokens(tokens);
    const again = new UpstreamOAuthProvider({
      serverId: 'work-sharepoint',
      serverUrl: 'https://mcp.example.com/mcp',
      store: new KeychainStore(service, entry),
      pending: new PendingSignIns(),
      redirectUrl: () => 'http://127.0.0.1:4242/oauth/callback',
      onAuthorizationUrl: () => undefined,
    });
    expect(await again.tokens()).toEqual(tokens);
    for (const value of items.values()) expect(value.length).toBeLessThanOrEqual(1280);

    const header = `Bearer ${jwt(1400, 'HeAdEr')}`;
    await store.set('srv', 'header:Authorization', header);
    expect(await new KeychainStore(service, entry).get('srv', 'header:Authorization')).toBe(header);
    expect(store.known()).toContain(header);
  });

  it('removes the extra entries when a shorter value replaces a long one, and on forgetting', async () => {
    const { entry, items } = windowsKeychain();
    const store = new KeychainStore(service, entry);
    await store.set('gh', 'env:T', 'x'.repeat(3500));
    expect(accounts(items)).toEqual(['gh/env:T', 'gh/env:T#1', 'gh/env:T#2', 'gh/env:T#3']);
    await store.set('gh', 'env:T', 'y'.repeat(1500));
    expect(accounts(items)).toEqual(['gh/env:T', 'gh/env:T#1']);
    expect(await store.get('gh', 'env:T')).toBe('y'.repeat(1500));
    await store.set('gh', 'env:T', 'short');
    expect(accounts(items)).toEqual(['gh/env:T']);
    expect(await store.get('gh', 'env:T')).toBe('short');
    await store.set('gh', 'env:T', 'z'.repeat(2500));
    await store.delete('gh', 'env:T');
    expect(items.size).toBe(0);
    expect(await store.get('gh', 'env:T')).toBeUndefined();
  });

  it('reads values saved as one plain entry, never cuts a character in two, and keeps a value that looks like a head', async () => {
    const { entry, items } = windowsKeychain();
    items.set(`${service}|gh/env:OLD`, 'saved-before-parts-existed');
    const store = new KeychainStore(service, entry);
    expect(await store.get('gh', 'env:OLD')).toBe('saved-before-parts-existed');

    // Each part is handed to the OS as text: a part ending in half an emoji would come back as U+FFFD.
    const emoji = `a${'\u{1F511}'.repeat(1500)}`;
    await store.set('gh', 'env:EMOJI', emoji);
    for (const value of items.values()) expect(value).not.toMatch(/[\uD800-\uDBFF]$|^[\uDC00-\uDFFF]/);
    expect(await new KeychainStore(service, entry).get('gh', 'env:EMOJI')).toBe(emoji);

    const lookalike = `spillway-parts:3:${'0'.repeat(16)}:not really parts`;
    await store.set('gh', 'env:ODD', lookalike);
    expect(await new KeychainStore(service, entry).get('gh', 'env:ODD')).toBe(lookalike);
  });

  it('says so plainly when the parts do not belong together (Spillway stopped while saving)', async () => {
    const { entry, items } = windowsKeychain();
    const store = new KeychainStore(service, entry);
    await store.set('gh', 'env:T', 'a'.repeat(2500));
    items.set(`${service}|gh/env:T#1`, 'b'.repeat(1000)); // a newer value's part, written before its head was
    const err = await store.get('gh', 'env:T').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SecretStoreError);
    expect((err as Error).message).toMatch(
      /^The secret env:T of gh in the system keychain is incomplete: Spillway was stopped while saving it\. Enter it again in Spillway/,
    );
  });
});

// The real keychain only where one runs in this process's session (a desktop); test/e2e/keychain-real.test.ts
// runs the whole hub against a real gnome-keyring in a private D-Bus session on Linux CI.
const keychainHere = await keychainWorks(keyringEntry, `Spillway probe test ${process.pid}`);
describe.skipIf(!keychainHere)('the OS keychain (skipped where no keychain service runs)', () => {
  it('stores, reads and forgets a value', async () => {
    const store = new KeychainStore(`Spillway test ${process.pid}-${Date.now()}`);
    await store.set('gh', 'env:GITHUB_PAT', VALUE);
    expect(await store.get('gh', 'env:GITHUB_PAT')).toBe(VALUE);
    await store.delete('gh', 'env:GITHUB_PAT');
    expect(await store.get('gh', 'env:GITHUB_PAT')).toBeUndefined();
  });
});
