/**
 * One server's UpstreamOAuthProvider over a memory secret store, with the PendingSignIns it shares with the
 * callback: for unit tests that drive the provider in the order the SDK's auth calls it.
 */
import { PendingSignIns } from '../../electron/core/oauth/pending-sign-ins.js';
import { UpstreamOAuthProvider } from '../../electron/core/oauth/upstream-oauth-provider.js';
import { memorySecretStore } from './memory-secret-store.js';

export function makeOAuthProvider(): { provider: UpstreamOAuthProvider; pending: PendingSignIns } {
  const pending = new PendingSignIns();
  const provider = new UpstreamOAuthProvider({
    serverId: 'remote',
    serverUrl: 'https://remote.example/mcp',
    store: memorySecretStore(),
    pending,
    redirectUrl: () => 'http://127.0.0.1:4242/oauth/callback',
    onAuthorizationUrl: () => undefined,
  });
  return { provider, pending };
}
