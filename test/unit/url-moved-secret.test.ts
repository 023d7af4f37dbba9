/**
 * A credential parameter of a remote server's address that refers to the key stored under another
 * parameter's name (movedSecretRef: `token=***` renamed `access_token=***` in the edit form): the save
 * stores that key under the new name, and a Test or a start resolves it, as for a renamed header (audit s19).
 */
import { describe, expect, it } from 'vitest';
import type { ServerConfig } from '../../shared/config.js';
import { memorySecretStore as memoryStore } from '../support/memory-secret-store.js';
import { movedSecretRef, resolveServerSecrets, storeServerSecrets } from '../../electron/core/secrets/server-secret-refs.js';
import { swapSecretParams } from '../../electron/core/secrets/url-secrets.js';

const http = (url: string): ServerConfig => ({ type: 'http', url, headers: {}, enabled: true, prefix: true });
/** The address `restoreMaskedSecrets` sends for the rename: the new parameter refers to the old one's key. */
const renamed = swapSecretParams('https://h/mcp?access_token=x&v=1', () => movedSecretRef('token'));

describe('a renamed credential parameter of an address', () => {
  it('is stored under its new name with the key the old one held', async () => {
    const store = memoryStore();
    await storeServerSecrets(store, 's', http('https://h/mcp?token=T0K&v=1'));
    const { config, changed } = await storeServerSecrets(store, 's', http(renamed));
    expect(changed).toBe(true);
    expect(config).toMatchObject({ url: 'https://h/mcp?access_token=<secret>&v=1' });
    expect(store.items.get('s/url:access_token')).toBe('T0K');
  });

  it("is resolved to the old one's key for a Test, and said plainly when that key is gone", async () => {
    const store = memoryStore();
    await storeServerSecrets(store, 's', http('https://h/mcp?token=T0K&v=1'));
    expect(await resolveServerSecrets(store, 's', http(renamed))).toMatchObject({ url: 'https://h/mcp?access_token=T0K&v=1' });
    await expect(resolveServerSecrets(memoryStore(), 's', http(renamed))).rejects.toThrow('The key token in the address of s is not in the');
  });
});
