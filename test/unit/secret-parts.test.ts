/**
 * The parts of a stored secret that are secrets alone (the credential of `Bearer X`, the value of
 * `--token=X`, an address's password), the encoded forms a known value is also masked in, and the secret
 * values of a config being tested before it is saved.
 */
import { describe, expect, it } from 'vitest';
import { ServerConfigSchema } from '../../shared/config.js';
import { REDACTED } from '../../electron/core/log/redact.js';
import { valueMask } from '../../electron/core/log/secret-values.js';
import { secretPartsWithin, unsavedSecretValues } from '../../electron/core/secrets/secret-parts.js';

describe('secretPartsWithin', () => {
  it.each<[string, string, string[]]>([
    ['a bearer header', 'Bearer quietly-lowercase-kappa', ['quietly-lowercase-kappa']],
    ['an option word', '--token=eqform-token-4410', ['eqform-token-4410']],
    ['a catalog entry word', 'TFE_TOKEN=tfe-secret-token', ['tfe-secret-token']],
    ['a header line', 'X-Api-Key: abc123xyz', ['abc123xyz']],
    ['a header line with a scheme', 'Authorization: Bearer zzz-token-1', ['Bearer zzz-token-1', 'zzz-token-1']],
    ['an address password, also decoded', 'postgres://u:p%40ssword1@host/db', ['p%40ssword1', 'p@ssword1']],
    ['an address in an assignment', 'DATABASE_URL=postgres://u:pw123456@h/db', ['postgres://u:pw123456@h/db', 'pw123456']],
    ['a key in an address', 'https://h/mcp?api_key=key-in-url-9&region=eu', ['key-in-url-9']],
    ['a setting among others', 'host=db user=app password=s3cretpw', ['db user=app password=s3cretpw', 's3cretpw']],
    ['a Basic credential', `Basic ${Buffer.from('me:basicpw99').toString('base64')}`, [Buffer.from('me:basicpw99').toString('base64'), 'basicpw99']],
  ])('%s', (_name, value, parts) => {
    expect(secretPartsWithin(value)).toEqual(parts);
  });

  it('finds nothing in a plain value, and nothing that is the value itself', () => {
    expect(secretPartsWithin('ghp_R3alLooking0Secret9xyz')).toEqual([]);
    expect(secretPartsWithin('https://example.com/mcp')).toEqual([]);
  });

  it('gives short parts too: valueMask leaves those under the minimum alone', () => {
    const parts = secretPartsWithin('--mode=F4st');
    expect(parts).toEqual(['F4st']);
    expect(valueMask(parts).mask('run F4st')).toBe('run F4st');
  });

  it('leaves out plain words and parts the value shows elsewhere: servers print those as a matter of course', () => {
    // The password is the user and database name too; the whole address stays a secret.
    expect(secretPartsWithin('postgresql://postgres:postgres@localhost:5432/postgres')).toEqual([]);
    // admin:password
    expect(secretPartsWithin('Basic YWRtaW46cGFzc3dvcmQ=')).toEqual(['YWRtaW46cGFzc3dvcmQ=']);
    expect(secretPartsWithin('--token=sekrit')).toEqual([]);
    expect(secretPartsWithin('postgres://app:Xk9-pw7q@db/app')).toEqual(['Xk9-pw7q']);
    const stored = ['postgresql://postgres:postgres@localhost:5432/postgres', 'Basic YWRtaW46cGFzc3dvcmQ='];
    const mask = valueMask(stored.flatMap((value) => [value, ...secretPartsWithin(value)]));
    expect(mask.mask('npx -y @modelcontextprotocol/server-postgres exited; role "postgres" does not exist')).toBe(
      'npx -y @modelcontextprotocol/server-postgres exited; role "postgres" does not exist',
    );
    expect(mask.mask('Enter your password: wrong password')).toBe('Enter your password: wrong password');
  });
});

describe('valueMask', () => {
  it('masks a value in base64 (padded or not) and URL-encoded too', () => {
    const value = 'env/value+with=odd chars';
    const mask = valueMask([value]);
    const b64 = Buffer.from(value).toString('base64');
    expect(mask.mask(`b64 ${b64} url ${encodeURIComponent(value)} plain ${value}`)).toBe(`b64 ${REDACTED} url ${REDACTED} plain ${REDACTED}`);
    const short = Buffer.from('abcdefg').toString('base64');
    expect(short.endsWith('=')).toBe(true);
    expect(valueMask(['abcdefg']).mask(`${short.replace(/=+$/, '')} and ${short}`)).toBe(`${REDACTED} and ${REDACTED}==`);
  });
});

describe('unsavedSecretValues', () => {
  it('takes env values, secret words, the credentials in an address, and their parts', () => {
    const stdio = ServerConfigSchema.parse({
      type: 'stdio',
      command: 'npx',
      args: ['--api-key', 'sk-word-value-1', '--token=inner-value-2', 'postgresql://u:dbpass-3@h/db', '--port', '8080'],
      env: { K: 'Bearer env-credential-4' },
    });
    const values = unsavedSecretValues(stdio);
    for (const v of ['sk-word-value-1', '--token=inner-value-2', 'inner-value-2', 'dbpass-3', 'env-credential-4']) expect(values).toContain(v);
    expect(values).not.toContain('8080');
    const http = ServerConfigSchema.parse({ type: 'http', url: 'https://h/mcp?api_key=url-key-5&x=1', headers: { 'X-Key': 'header-6' } });
    expect(unsavedSecretValues(http)).toEqual(['header-6', 'url-key-5']);
  });
});
