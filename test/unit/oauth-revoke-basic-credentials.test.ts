/**
 * Sign-out's revocation sends a client_secret_basic client's credentials as the SDK's token requests do (the
 * raw `id:secret`, base64-encoded), so a server that accepts the refreshes accepts the revocation too, also
 * for a secret holding '/', '+' or '='.
 */
import { expect, it } from 'vitest';
import { refreshAuthorization } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { PendingSignIns } from '../../electron/core/oauth/pending-sign-ins.js';
import { revokeTokens } from '../../electron/core/oauth/token-revocation.js';
import { UpstreamOAuthProvider } from '../../electron/core/oauth/upstream-oauth-provider.js';
import { memorySecretStore } from '../support/memory-secret-store.js';

it('revocation sends the same Basic credentials as the refresh', async () => {
  const issuer = 'https://auth.example.com';
  const metadata = {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    revocation_endpoint: `${issuer}/revoke`,
    response_types_supported: ['code'],
    token_endpoint_auth_methods_supported: ['client_secret_basic'],
  };
  const client = {
    client_id: 'spillway-1',
    client_secret: 'k9/Xz+Q==',
    token_endpoint_auth_method: 'client_secret_basic',
    redirect_uris: ['http://127.0.0.1:1/oauth/callback'],
  };
  const store = memorySecretStore();
  await store.set('remote', 'oauth:client', JSON.stringify(client));
  const p = new UpstreamOAuthProvider({
    serverId: 'remote',
    serverUrl: 'https://mcp.example.com/mcp',
    store,
    pending: new PendingSignIns(),
    redirectUrl: () => 'http://127.0.0.1:1/oauth/callback',
    onAuthorizationUrl: () => {},
  });
  p.saveDiscoveryState({ authorizationServerUrl: issuer, authorizationServerMetadata: metadata as never });
  const seen: Record<string, string | null> = {};
  const fetchFn: FetchLike = async (url, init) => {
    seen[new URL(url).pathname] = new Headers(init?.headers).get('authorization');
    return new Response(JSON.stringify({ access_token: 'a', token_type: 'bearer' }), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  };
  await refreshAuthorization(issuer, { metadata: metadata as never, clientInformation: client, refreshToken: 'rt', fetchFn });
  await revokeTokens(p, { access_token: 'a', token_type: 'bearer', refresh_token: 'rt', issuer } as never, fetchFn);
  expect(Buffer.from(seen['/revoke']!.slice(6), 'base64').toString()).toBe('spillway-1:k9/Xz+Q==');
  expect(seen['/revoke']).toBe(seen['/token']);
});
