/**
 * An in-memory keychain that answers while `up` says so, else refuses every call as a locked keyring or
 * a missing Secret Service does; `failWrite` makes the write of one account fail.
 */
import type { KeychainEntryFactory } from '../../electron/core/secrets/keychain-store.js';

export function fakeKeychain(
  up: () => boolean,
  failWrite?: (account: string) => boolean,
): { entry: KeychainEntryFactory; items: Map<string, string>; accounts: () => string[] } {
  const items = new Map<string, string>();
  const refuse = async (): Promise<never> => {
    throw new Error("Couldn't access platform storage: AccessDenied");
  };
  const entry: KeychainEntryFactory = (service, account) => {
    const key = `${service}|${account}`;
    return up()
      ? {
          getPassword: async () => items.get(key) ?? null,
          setPassword: async (value: string) => {
            if (failWrite?.(account)) throw new Error('Platform secure storage failure: no space');
            items.set(key, value);
          },
          deleteCredential: async () => items.delete(key),
        }
      : { getPassword: refuse, setPassword: refuse, deleteCredential: refuse };
  };
  const accounts = () => [...items.keys()].map((key) => key.slice(key.indexOf('|') + 1)).sort();
  return { entry, items, accounts };
}
