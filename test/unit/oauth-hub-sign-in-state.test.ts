/**
 * The sign-in a turned-off server lists (read from the store, never connected): read again once a
 * keychain locked at hub start answers, and for the address configured now (an edited one has no tokens).
 */
import { expect, it } from 'vitest';
import { HubSignIns } from '../../electron/core/hub/hub-sign-ins.js';
import { SecretStoreError } from '../../electron/core/secrets/secret-store.js';
import { memorySecretStore } from '../support/memory-secret-store.js';

function deferred() {
  let resolve = () => {};
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/** A memory store whose reads can be refused, and waited for. */
function watchedStore() {
  const store = memorySecretStore();
  const get = store.get;
  const watch = { locked: false, reads: 0, next: deferred() };
  store.get = async (id, name) => {
    watch.reads++;
    try {
      if (watch.locked) throw new SecretStoreError('The system keychain refused to read (locked)');
      return await get(id, name);
    } finally {
      const done = watch.next;
      watch.next = deferred();
      // Once the provider has taken the answer in (the next turn).
      setImmediate(() => done.resolve());
    }
  };
  return { store, watch };
}

const hubSignIns = (store: ReturnType<typeof memorySecretStore>, servers: Record<string, unknown>) =>
  new HubSignIns({ store, upstreams: () => new Map(), servers: () => servers as never, endpointUrl: () => 'http://127.0.0.1:1/mcp', emit: () => {} });

it('a store that was locked at start is read again once it answers', async () => {
  const url = 'https://mcp.example.com/mcp';
  const { store, watch } = watchedStore();
  await store.set(
    'remote',
    'oauth:tokens',
    JSON.stringify({ serverUrl: url, tokens: { access_token: 'at', refresh_token: 'rt', token_type: 'bearer' } }),
  );
  watch.locked = true;
  let read = watch.next.promise;
  const signIns = hubSignIns(store, { remote: { type: 'http', url, headers: {}, enabled: false } });
  await read;
  expect(signIns.oauth.provider('remote')?.hasCachedTokens).toBeUndefined();
  watch.locked = false; // the user unlocks the keychain; the window lists the servers again
  read = watch.next.promise;
  const before = watch.reads;
  signIns.authInfo('remote');
  expect(watch.reads).toBe(before + 1);
  await read;
  expect(signIns.authInfo('remote').state).toBe('signed-in');
});

it('an edited address of a turned-off server is not signed in', async () => {
  const oldUrl = 'https://old.example.com/mcp';
  const { store, watch } = watchedStore();
  await store.set('remote', 'oauth:tokens', JSON.stringify({ serverUrl: oldUrl, tokens: { access_token: 'at', token_type: 'bearer' } }));
  const servers: Record<string, unknown> = { remote: { type: 'http', url: oldUrl, headers: {}, enabled: false } };
  let read = watch.next.promise;
  const signIns = hubSignIns(store, servers);
  await read;
  expect(signIns.authInfo('remote').state).toBe('signed-in');
  servers.remote = { type: 'http', url: 'https://new.example.com/mcp', headers: {}, enabled: false };
  read = watch.next.promise;
  expect(signIns.authInfo('remote').state).toBe('none');
  await read;
  expect(signIns.authInfo('remote').state).toBe('none');
});
