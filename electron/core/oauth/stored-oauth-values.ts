/**
 * A server's OAuth values in the secret store (issue 15): their names, the tokens entry's shape, and the
 * secrets inside them (for masking by value).
 */
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/** The secret store's names for a server's OAuth values. */
export const OAUTH_SECRETS = { tokens: 'oauth:tokens', client: 'oauth:client', verifier: 'oauth:verifier' } as const;

/** The secret store's tokens entry: the address they are for, and the scope the sign-in asked for. */
export interface StoredTokens {
  serverUrl?: string;
  tokens?: OAuthTokens;
  scope?: string;
}

const SECRET_FIELDS = ['access_token', 'refresh_token', 'id_token', 'client_secret'] as const;

/**
 * The secrets inside a stored OAuth value (the tokens entry, the client registration), for masking them by
 * value: a server's error text quotes the access token, not the JSON it is stored in. None for other values.
 */
export function oauthSecretsWithin(stored: string): string[] {
  if (!stored.startsWith('{')) return [];
  const entry = parseJson<{ tokens?: unknown }>(stored);
  return [...secretFields(entry), ...secretFields(entry?.tokens)];
}

function secretFields(holder: unknown): string[] {
  if (!holder || typeof holder !== 'object') return [];
  return SECRET_FIELDS.map((field): unknown => Reflect.get(holder, field)).filter((value) => typeof value === 'string');
}

/** A stored JSON value; a damaged entry counts as none (the SDK registers or signs in again). */
export function parseJson<T>(text: string | undefined): T | undefined {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}
