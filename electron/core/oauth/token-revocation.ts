/**
 * Revoking a server's tokens at sign-out (RFC 7009), best effort: only at the authorization server that
 * issued them (the SDK stamps tokens with it as `issuer`), never at one that discovery names today (after
 * a restart, or once the server points elsewhere, that one never saw the tokens), and without following
 * redirects, so the tokens and the client secret are posted to the revocation endpoint and nowhere else.
 */
import { discoverAuthorizationServerMetadata, selectClientAuthMethod } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { checkAuthServerEndpoints } from './auth-server-requests.js';
import type { UpstreamOAuthProvider } from './upstream-oauth-provider.js';

/** Whether two authorization server identifiers name the same server (a trailing `/` aside, as the SDK compares them). */
export function sameIssuer(a: string, b: string): boolean {
  const norm = (s: string) => {
    try {
      return new URL(s).href.replace(/\/$/, '');
    } catch {
      return s.replace(/\/$/, '');
    }
  };
  return norm(a) === norm(b);
}

/**
 * Posts each token to the revocation endpoint of the server that issued them, authenticated as the client
 * they were issued to (`given`, read before a sign-out forgot it; else the provider's), as the SDK does
 * at the token endpoint (the registration's method where the server supports it, else the server's:
 * client_secret_basic in an Authorization header, client_secret_post in the body, or the client ID alone
 * for a public client); true when all were accepted. False, posting nothing, when the tokens name no
 * issuer, the client was registered elsewhere, or that server offers no revocation. `provider` only lends
 * its discovery (the authorization server's metadata, if read this run).
 */
export async function revokeTokens(
  provider: UpstreamOAuthProvider,
  tokens: OAuthTokens,
  fetchFn: FetchLike,
  given?: OAuthClientInformationMixed,
): Promise<boolean> {
  const issuer = tokens.issuer;
  if (!issuer) return false;
  const client = given ?? (await provider.clientInformation());
  if (!client || (client.issuer && !sameIssuer(client.issuer, issuer))) return false;
  const known = provider.discoveryState();
  const metadata =
    known && sameIssuer(known.authorizationServerUrl, issuer)
      ? (known.authorizationServerMetadata ?? (await discoverAuthorizationServerMetadata(issuer, { fetchFn })))
      : await discoverAuthorizationServerMetadata(issuer, { fetchFn });
  const endpoint =
    metadata && 'revocation_endpoint' in metadata && typeof metadata.revocation_endpoint === 'string' ? metadata.revocation_endpoint : undefined;
  if (!endpoint) return false;
  checkAuthServerEndpoints(issuer, metadata);
  const method = selectClientAuthMethod(client, supportedMethods(metadata ?? {}));
  let all = true;
  for (const token of [tokens.refresh_token, tokens.access_token]) {
    if (!token) continue;
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    const body = new URLSearchParams({ token });
    if (method === 'client_secret_basic' && client.client_secret) {
      // As the SDK's token requests send them (its applyBasicAuth: the raw `id:secret`), so that a server
      // that accepts the refreshes accepts the revocation too.
      headers.authorization = `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`;
    } else {
      body.set('client_id', client.client_id);
      if (method === 'client_secret_post' && client.client_secret) body.set('client_secret', client.client_secret);
    }
    const res = await fetchFn(endpoint, { method: 'POST', headers, body, redirect: 'manual' });
    await res.body?.cancel();
    all &&= res.ok;
  }
  return all;
}

/** The client authentication methods the revocation endpoint takes (RFC 8414: its own list, else the token endpoint's). */
function supportedMethods(metadata: object): string[] {
  for (const field of ['revocation_endpoint_auth_methods_supported', 'token_endpoint_auth_methods_supported']) {
    const value: unknown = Reflect.get(metadata, field);
    if (Array.isArray(value)) return value.filter((m): m is string => typeof m === 'string');
  }
  return [];
}
