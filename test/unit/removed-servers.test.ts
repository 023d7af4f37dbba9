/** Undo for Remove: what a removed server leaves to put it back (its secret values, its sign-in, its policies), once, for a while. */
import { describe, expect, it } from 'vitest';
import { SECRET_REF, type ServerConfig } from '../../shared/config.js';
import type { ServerPolicies } from '../../shared/policy.js';
import { RemovedServers } from '../../electron/core/control/removed-servers.js';
import { OAUTH_SECRETS } from '../../electron/core/oauth/upstream-oauth-provider.js';
import { storeServerSecrets } from '../../electron/core/secrets/server-secret-refs.js';
import { memorySecretStore } from '../support/memory-secret-store.js';

const policies: ServerPolicies = { server: { exposure: 'direct' }, tools: { search: { hiddenParams: { key: 'k-456' } } } };
const web: ServerConfig = { type: 'http', url: 'https://mcp.example.com/mcp', headers: { 'X-Key': 'k-123' }, enabled: true, prefix: true };

describe('removed servers', () => {
  it('holds the values behind the references and the sign-in (not a stale PKCE verifier), once', async () => {
    const store = memorySecretStore();
    const { config } = await storeServerSecrets(store, 'notes', web);
    expect(config.type === 'http' && config.headers['X-Key']).toBe(SECRET_REF);
    await store.set('notes', OAUTH_SECRETS.tokens, '{"access_token":"at"}');
    await store.set('notes', OAUTH_SECRETS.verifier, 'v1');
    const removed = new RemovedServers();
    await removed.keep('notes', config, {}, store);
    store.items.clear(); // what Remove then forgets
    expect(removed.take('notes')).toEqual({ config: web, signIn: { [OAUTH_SECRETS.tokens]: '{"access_token":"at"}' }, policies: {} });
    expect(removed.take('notes')).toBeUndefined();
  });

  it('holds its policies with it, until it is taken back', async () => {
    const removed = new RemovedServers();
    await removed.keep('web', web, policies, undefined);
    expect(removed.held('web')?.policies).toEqual(policies);
    expect(removed.take('web')?.policies).toEqual(policies);
    expect(removed.held('web')).toBeUndefined();
  });

  it('lets go after its time', async () => {
    let now = 0;
    const removed = new RemovedServers(1000, () => now);
    await removed.keep('a', web, policies, undefined);
    now = 1001;
    expect(removed.take('a')).toBeUndefined();
  });

  it('refuses to hold a server whose value the store no longer has (Remove then offers no Undo)', async () => {
    const removed = new RemovedServers();
    const cfg: ServerConfig = { ...web, headers: { 'X-Key': SECRET_REF } };
    await expect(removed.keep('gone', cfg, policies, memorySecretStore())).rejects.toThrow(/not in the secrets file/);
    expect(removed.take('gone')).toBeUndefined();
  });
});
