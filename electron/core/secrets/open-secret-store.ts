/**
 * Chooses a data folder's secret store: the OS keychain when a probe (write, read back, forget one entry)
 * succeeds, else the encrypted file. The probe runs once per start; where no keychain service runs (a
 * Linux machine without the Secret Service) it fails at once. The choice is carried between starts: the
 * first start where the keychain answers moves secrets.enc's values into it (move-file-secrets.ts) and
 * marks the folder; a marked folder keeps the keychain at a start where it does not answer, and says so
 * when a secret is needed (keychain-marker.ts), rather than starting over with an empty secrets.enc. What
 * a move left in secrets.enc (values the keychain lacked) is still read from it at such a start.
 */
import { loadOrCreateHubId } from '../files/hub-identity.js';
import { EncryptedFileStore } from './encrypted-file-store.js';
import { keptInKeychain, markKeptInKeychain, UnansweredKeychainStore } from './keychain-marker.js';
import { KEYCHAIN_TIMEOUT_MS, KeychainStore, keychainService, keyringEntry, type KeychainEntryFactory } from './keychain-store.js';
import { keychainWithUnmoved, moveFileSecrets } from './move-file-secrets.js';
import type { SecretStore } from './secret-store.js';

export interface OpenSecretStoreOptions {
  dataDir: string;
  /** The keychain to probe (tests hand in a fake); `false` skips it and uses the encrypted file. */
  keychain?: KeychainEntryFactory | false;
  /** Where to say what happened to the secrets (moved into the keychain, not reachable); stderr by default. */
  log?: (message: string) => void;
  /** How long the start-up probe waits for the keychain (default KEYCHAIN_TIMEOUT_MS): past it, it does not answer. */
  probeTimeoutMs?: number;
}

const PROBE_ACCOUNT = 'probe';

/**
 * Whether the keychain stores and returns a value (its failure is the answer, not an error). A keychain
 * that waits on a prompt nobody answers (a locked keyring, an unlock window behind others) would hold the
 * start forever: after `timeoutMs` it counts as not answering.
 */
export async function keychainWorks(entry: KeychainEntryFactory, service: string, timeoutMs = KEYCHAIN_TIMEOUT_MS): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const probe = async () => {
    const item = entry(service, PROBE_ACCOUNT);
    const value = `probe-${process.pid}-${Date.now()}`;
    await item.setPassword(value);
    const back = await item.getPassword();
    await item.deleteCredential();
    return back === value;
  };
  try {
    return await Promise.race([probe(), late]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The keychain store if the keychain answers (secrets.enc's values moved into it), or if this data folder's
 * secrets are in the keychain; else the encrypted file in the data folder.
 */
export async function openSecretStore(options: OpenSecretStoreOptions): Promise<SecretStore> {
  const entry = options.keychain ?? keyringEntry;
  if (!entry) return EncryptedFileStore.open(options.dataDir);
  const log = options.log ?? ((message: string) => console.warn(message));
  const service = keychainService(await loadOrCreateHubId(options.dataDir));
  const keychain = new KeychainStore(service, entry);
  if (await keychainWorks(entry, service, options.probeTimeoutMs)) {
    // Marked before the move, so that a start where the keychain fails after this one does not take the file.
    await markKeptInKeychain(options.dataDir).catch((err: unknown) =>
      log(`Spillway could not note in the data folder that its secrets are in the system keychain: ${(err as Error).message}`),
    );
    return moveFileSecrets(keychain, options.dataDir, log);
  }
  if (!(await keptInKeychain(options.dataDir))) return EncryptedFileStore.open(options.dataDir);
  log(
    'The system keychain did not answer when Spillway started, and this data folder keeps its secrets there: ' +
      'a server that needs one cannot start until the keychain is unlocked (then press Restart on it).',
  );
  return new UnansweredKeychainStore(await keychainWithUnmoved(keychain, options.dataDir, log), options.dataDir);
}
