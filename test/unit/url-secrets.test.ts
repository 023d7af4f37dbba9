import { describe, expect, it } from 'vitest';
import { SECRET_REF, type ServerConfig } from '../../shared/config.js';
import { maskServerSecrets, restoreMaskedSecrets } from '../../electron/core/control/server-secrets.js';
import { isSecretParam, splitUrlSecrets, swapSecretParams, urlSecretRefs } from '../../electron/core/secrets/url-secrets.js';

describe('credentials in a server address', () => {
  it.each([
    ['api_key', true],
    ['apiKey', true],
    ['apikey', true],
    ['key', true],
    ['token', true],
    ['access_token', true],
    ['authToken', true],
    ['x-api-key', true],
    ['client_secret', true],
    ['sig', true],
    ['password', true],
    ['region', false],
    ['monkey', false],
    ['profile', false],
    ['keyword', false],
    ['tokens_max', false],
  ])('%s is a credential: %s', (name, secret) => {
    expect(isSecretParam(name)).toBe(secret);
  });

  it('takes credentials out of the address, leaving the rest exactly as written', () => {
    const { url, values } = splitUrlSecrets('https://mcp.example.com/v1/mcp?profile=a%20b&api_key=k%2B1%3D&token=&x=1#top');
    expect(url).toBe(`https://mcp.example.com/v1/mcp?profile=a%20b&api_key=${SECRET_REF}&token=&x=1#top`);
    expect([...values]).toEqual([['api_key', 'k+1=']]);
    expect(urlSecretRefs(url)).toEqual(['api_key']);
    // Put back, the value is encoded again.
    expect(swapSecretParams(url, (name) => (name === 'api_key' ? 'k+1=' : undefined))).toBe(
      'https://mcp.example.com/v1/mcp?profile=a%20b&api_key=k%2B1%3D&token=&x=1#top',
    );
  });

  it('leaves an address without credentials, or with references only, as it is', () => {
    for (const url of ['https://a.example/mcp', 'https://a.example/mcp?region=eu', `https://a.example/mcp?key=${SECRET_REF}`]) {
      expect(splitUrlSecrets(url)).toEqual({ url, values: new Map() });
    }
  });

  it('masks them in lists, and keeps the stored value when the masked address comes back', () => {
    const before: ServerConfig = { type: 'http', url: 'https://a.example/mcp?api_key=plain-9f8e7d&region=eu', headers: {} } as ServerConfig;
    const shown = maskServerSecrets(before);
    expect((shown as { url: string }).url).toBe('https://a.example/mcp?api_key=***&region=eu');
    const back = restoreMaskedSecrets({ ...shown, url: 'https://a.example/mcp?api_key=***&region=us' } as ServerConfig, before);
    expect((back as { url: string }).url).toBe('https://a.example/mcp?api_key=plain-9f8e7d&region=us');
    // A new value typed over the mask is taken.
    const typed = restoreMaskedSecrets({ ...shown, url: 'https://a.example/mcp?api_key=new-1' } as ServerConfig, before);
    expect((typed as { url: string }).url).toBe('https://a.example/mcp?api_key=new-1');
  });
});
