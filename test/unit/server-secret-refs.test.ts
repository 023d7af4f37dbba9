/**
 * A server's env and header values as references to the secret store (issue 15): stored and referred to,
 * resolved for a start (a missing one said plainly), and forgotten when no config refers to them.
 */
import { describe, expect, it } from 'vitest';
import { SECRET_REF, defaultConfig, type ServerConfig } from '../../shared/config.js';
import { memorySecretStore as memoryStore } from '../support/memory-secret-store.js';
import {
  forgetUnreferenced,
  moveConfigSecrets,
  movedSecretRef,
  resolveServerSecrets,
  storeServerSecrets,
} from '../../electron/core/secrets/server-secret-refs.js';

const stdio = (env: Record<string, string>): ServerConfig => ({ type: 'stdio', command: 'x', args: [], env, enabled: true, prefix: true });

describe('server secret references', () => {
  it('stores every non-empty value and resolves the references back', async () => {
    const store = memoryStore();
    const { config, changed } = await storeServerSecrets(store, 'gh', stdio({ PAT: 'ghp_1', EMPTY: '' }));
    expect(changed).toBe(true);
    expect(config).toMatchObject({ env: { PAT: SECRET_REF, EMPTY: '' } });
    expect(store.items.get('gh/env:PAT')).toBe('ghp_1');
    expect(await resolveServerSecrets(store, 'gh', config)).toMatchObject({ env: { PAT: 'ghp_1', EMPTY: '' } });
    expect((await storeServerSecrets(store, 'gh', config)).changed).toBe(false);
  });

  it('says which value is missing from the store and what to do', async () => {
    await expect(resolveServerSecrets(memoryStore(), 'gh', stdio({ PAT: SECRET_REF }))).rejects.toThrow(
      "The variable PAT of gh is not in the secrets file: enter its value again in the server's settings.",
    );
  });

  it('forgets values a new config no longer refers to, and all of another kind of server', async () => {
    const store = memoryStore();
    const before = (await storeServerSecrets(store, 'gh', stdio({ A: 'value-a', B: 'value-b' }))).config;
    await forgetUnreferenced(store, 'gh', before, stdio({ A: SECRET_REF, B: '' }));
    expect([...store.items.keys()]).toEqual(['gh/env:A']);
    await forgetUnreferenced(store, 'gh', before, { type: 'http', url: 'http://x/mcp', headers: { A: SECRET_REF }, enabled: true, prefix: true });
    expect(store.items.size).toBe(0);
  });

  it('a renamed value (movedSecretRef) is stored under its new name and resolved from the old one', async () => {
    const store = memoryStore();
    const before = (await storeServerSecrets(store, 'gh', stdio({ OLD: 'renamed-value-1' }))).config;
    const renamed = stdio({ NEW: movedSecretRef('OLD') });
    expect(await resolveServerSecrets(store, 'gh', renamed)).toMatchObject({ env: { NEW: 'renamed-value-1' } });
    const { config, changed } = await storeServerSecrets(store, 'gh', renamed);
    expect({ config, changed }).toMatchObject({ config: { env: { NEW: SECRET_REF } }, changed: true });
    expect(store.items.get('gh/env:NEW')).toBe('renamed-value-1');
    await forgetUnreferenced(store, 'gh', before, config);
    expect([...store.items.keys()]).toEqual(['gh/env:NEW']);
    await expect(storeServerSecrets(store, 'gh', stdio({ X: movedSecretRef('GONE') }))).rejects.toThrow(
      'The variable GONE of gh is not in the secrets file',
    );
  });

  it('moves a whole config, leaving one without plain values alone', async () => {
    const store = memoryStore();
    const config = { ...defaultConfig(), servers: { gh: stdio({ PAT: 'ghp_2' }), none: stdio({}) } };
    const moved = await moveConfigSecrets(store, config);
    expect(moved?.servers).toEqual(['gh']);
    expect(await moveConfigSecrets(store, moved!.config)).toBeUndefined();
  });
});
