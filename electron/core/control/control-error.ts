import { SecretStoreError } from '../secrets/secret-store.js';

/** A control request that cannot be done: its code maps to the API's error codes, `field` names the input at fault. */
export class ControlError extends Error {
  constructor(
    readonly code: 'invalid' | 'not_found' | 'conflict' | 'unavailable' | 'internal',
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'ControlError';
  }
}

/** Runs a secret store operation; a store that refuses (a locked keychain, a damaged secrets file) becomes the control API's `unavailable`. */
export async function storeCall<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof SecretStoreError) throw new ControlError('unavailable', err.message, 'config');
    throw err;
  }
}
