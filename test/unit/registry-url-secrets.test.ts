/**
 * A catalog entry's secret put in a remote address anywhere but a credential parameter (its path, its
 * host, a parameter named otherwise): a `${SPILLWAY_SECRET_URL_<n>}` placeholder in the address, the text
 * under that name among the secret headers, and put back (the header left out) as the server is reached.
 */
import { describe, expect, it } from 'vitest';
import { SECRET_REF, ServerConfigSchema } from '../../shared/config.js';
import { registryUpstream, withSecrets } from '../../electron/core/registry/registry-upstream.js';
import { expandSecretUrl, hideUrlSecrets, splitUrlSecrets } from '../../electron/core/secrets/url-secrets.js';

const KEY = 'SUPERSECRETKEY123';

describe('a secret in a remote address', () => {
  it.each([
    ['the path', `https://mcp.example.com/${KEY}/mcp`, 'https://mcp.example.com/${SPILLWAY_SECRET_URL_1}/mcp'],
    ['the host', `https://${KEY}.mcp.example.com/mcp`, 'https://${SPILLWAY_SECRET_URL_1}.mcp.example.com/mcp'],
    [
      'a parameter not named like a credential',
      `https://a.example/mcp?customer=${KEY}&x=1`,
      'https://a.example/mcp?customer=${SPILLWAY_SECRET_URL_1}&x=1',
    ],
    [
      'twice, and part of a word',
      `https://a.example/u-${KEY}/${KEY}/mcp`,
      'https://a.example/u-${SPILLWAY_SECRET_URL_1}/${SPILLWAY_SECRET_URL_1}/mcp',
    ],
  ])('in %s becomes a placeholder, and is put back as the server is reached', (_where, url, placed) => {
    const hidden = hideUrlSecrets(url, [KEY]);
    expect(hidden).toEqual({ url: placed, values: { SPILLWAY_SECRET_URL_1: KEY } });
    // Still a valid address for config.json.
    expect(ServerConfigSchema.safeParse({ type: 'http', url: hidden.url }).success).toBe(true);
    expect(expandSecretUrl(hidden.url, { ...hidden.values, 'X-Other': 'v' })).toEqual({ url, headers: { 'X-Other': 'v' } });
  });

  it('a URL-encoded secret is replaced as written; two secrets get two names, a taken name is skipped', () => {
    const secret = 'a/b c';
    const hidden = hideUrlSecrets(`https://a.example/${encodeURIComponent(secret)}/mcp/tok-2`, [secret, 'tok-2'], new Set(['SPILLWAY_SECRET_URL_1']));
    expect(hidden).toEqual({
      url: 'https://a.example/${SPILLWAY_SECRET_URL_2}/mcp/${SPILLWAY_SECRET_URL_3}',
      values: { SPILLWAY_SECRET_URL_2: 'a%2Fb%20c', SPILLWAY_SECRET_URL_3: 'tok-2' },
    });
    expect(expandSecretUrl(hidden.url, hidden.values).url).toBe('https://a.example/a%2Fb%20c/mcp/tok-2');
  });

  it('a credential parameter is left to splitUrlSecrets, the scheme is never searched', () => {
    const url = `https://a.example/mcp?api_key=${KEY}`;
    expect(hideUrlSecrets(url, [KEY])).toEqual({ url, values: {} });
    expect(splitUrlSecrets(url).url).toBe(`https://a.example/mcp?api_key=${SECRET_REF}`);
    expect(hideUrlSecrets('https://a.example/mcp', ['https'])).toEqual({ url: 'https://a.example/mcp', values: {} });
    const both = hideUrlSecrets(`https://a.example/${KEY}/mcp?token=${KEY}`, [KEY]);
    expect(both.url).toBe(`https://a.example/\${SPILLWAY_SECRET_URL_1}/mcp?token=${KEY}`);
  });

  it('a placeholder without its header stays as written', () => {
    expect(expandSecretUrl('https://a.example/${SPILLWAY_SECRET_URL_2}/mcp', {})).toEqual({
      url: 'https://a.example/${SPILLWAY_SECRET_URL_2}/mcp',
      headers: {},
    });
  });
});

describe('a catalog remote with its key in the address', () => {
  it('keeps the key out of the config, among the secret headers', () => {
    const launch = { type: 'http' as const, url: `https://mcp.example.com/${KEY}/mcp`, headers: { 'x-region': 'eu' } };
    const upstream = registryUpstream(launch, new Set([KEY]), 'Keyed');
    expect(JSON.stringify(upstream.config)).not.toContain(KEY);
    expect(upstream.config).toMatchObject({ url: 'https://mcp.example.com/${SPILLWAY_SECRET_URL_1}/mcp', headers: { 'x-region': 'eu' } });
    expect(upstream.secrets).toEqual({ env: {}, headers: { SPILLWAY_SECRET_URL_1: KEY } });
    expect(upstream.secretArgs).toBe(1);
    const config = withSecrets(upstream);
    expect(config.type !== 'stdio' && expandSecretUrl(config.url, config.headers)).toEqual({ url: launch.url, headers: launch.headers });
  });

  it('a user name and password in the address become a secret Authorization header', () => {
    const launch = { type: 'http' as const, url: `https://me:${KEY}@mcp.example.com/mcp`, headers: {} };
    const upstream = registryUpstream(launch, new Set([KEY]));
    expect(upstream.config).toMatchObject({ url: 'https://mcp.example.com/mcp', headers: {} });
    expect(upstream.secrets.headers).toEqual({ Authorization: `Basic ${Buffer.from(`me:${KEY}`).toString('base64')}` });
  });
});
