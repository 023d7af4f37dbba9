/**
 * Chooses a data folder's secret store: the OS keychain when a probe (write, read back, forget one entry)
 * succeeds, else the encrypted file. The probe runs once per start; where no keychain service runs (a
 * Linux machine without the Secret Service) it fails at once.
 */
import { loadOrCreateHubId } from '../files/hub-identity.js';
import { EncryptedFileStore } from './encrypted-file-store.js';
import { KeychainStore, keychainService, keyringEntry, type KeychainEntryFactory } from './keychain-store.js';
import type { SecretStore } from './secret-store.js';

export interface OpenSecretStoreOptions {
  dataDir: string;
  /** The keychain to probe (tests hand in a fake); `false` skips it and uses the encrypted file. */
  keychain?: KeychainEntryFactory | false;
}

const PROBE_ACCOUNT = 'probe';

/** Whether the keychain stores and returns a value (its failure is the answer, not an error). */
export async function keychainWorks(entry: KeychainEntryFactory, service: string): Promise<boolean> {
  try {
    const probe = entry(service, PROBE_ACCOUNT);
    const value = `probe-${process.pid}-${Date.now()}`;
    await probe.setPassword(value);
    const back = await probe.getPassword();
    await probe.deleteCredential();
    return back === value;
  } catch {
    return false;
  }
}

/** The keychain store if the keychain answers, else the encrypted file in the data folder. */
export async function openSecretStore(options: OpenSecretStoreOptions): Promise<SecretStore> {
  const entry = options.keychain ?? keyringEntry;
  if (entry) {
    const service = keychainService(await loadOrCreateHubId(options.dataDir));
    if (await keychainWorks(entry, service)) return new KeychainStore(service, entry);
  }
  return EncryptedFileStore.open(options.dataDir);
}
