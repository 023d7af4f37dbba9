/**
 * Masking by value, not by key name (issue 13, item 12): configured env and header values are secrets
 * whatever they are called, and prose that merely says "token" is left alone.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigSchema, type Config, type ServerConfig } from '../../shared/config.js';
import { EventLog } from '../../electron/core/log/event-log.js';
import { REDACTED, redactSecrets, redactText } from '../../electron/core/log/redact.js';
import { MIN_SECRET_CHARS, SecretValues, configSecretValues, valueMask } from '../../electron/core/log/secret-values.js';
import { maskServerSecrets, restoreMaskedSecrets } from '../../electron/core/control/server-secrets.js';

const PAT = 'ghp_R3alLooking0Secret9xyz';
const OPENAI = 'sk-proj-Q7w8e9r0t1y2u3';
const CUSTOM = 'xca-9d8c7b6a5f4e';

const config = (over: Partial<Config> = {}): Config =>
  ConfigSchema.parse({
    version: 1,
    servers: {
      gh: { type: 'stdio', command: 'gh-mcp', env: { GITHUB_PAT: PAT, OPENAI_KEY: OPENAI, LOG_LEVEL: 'debug', EMPTY: '' } },
      web: { type: 'http', url: 'https://example.com/mcp', headers: { 'X-Custom-Auth': CUSTOM, Authorization: 'Bearer tok_live_8h7g6f5e' } },
    },
    settings: { compression: { apiKey: 'ck-compress-1234567' } },
    ...over,
  });

describe('redactText leaves prose alone', () => {
  it.each([
    'token budget exceeded',
    'the token count was 5000 (token budget: 4096)',
    'Token budget: 4096 tokens',
    'a basic setup, then the bearer token from step 2',
    'token 2048 of 4096',
    'Tokens used: 1234; basic usage.',
  ])('%s', (text) => {
    expect(redactText(text)).toBe(text);
  });

  it.each([
    ['token ghp_abc123def', `token ${REDACTED}`],
    ['Authorization: Token abcdefgh', `Authorization: Token ${REDACTED}`],
    ['authorization=Bearer plainword', `authorization=Bearer ${REDACTED}`],
    ['"authorization": "Bearer plainword"', `"authorization": "${REDACTED}"`],
    ['Basic dXNlcjpwYXNz', `Basic ${REDACTED}`],
    ['Bearer eyJhbGciOi.payload.sig', `Bearer ${REDACTED}`],
  ])('still masks credentials after a scheme word: %s', (text, expected) => {
    expect(redactText(text)).toBe(expected);
  });

  it('stays linear on long words after scheme words', () => {
    const line = `Token ${'a'.repeat(4000)} `.repeat(80);
    expect(redactText(line).length).toBeGreaterThan(0);
  });
});

describe('configSecretValues', () => {
  it('takes every env and header value whatever its key, the credential after a scheme, and the compression key', () => {
    const values = configSecretValues(config());
    expect(values).toEqual(
      expect.arrayContaining([PAT, OPENAI, 'debug', CUSTOM, 'Bearer tok_live_8h7g6f5e', 'tok_live_8h7g6f5e', 'ck-compress-1234567']),
    );
  });
});

describe('SecretValues', () => {
  it('masks every known value wherever it appears, also inside JSON text', () => {
    const secrets = new SecretValues();
    secrets.track('config', () => config(), configSecretValues);
    expect(secrets.mask(`env-echo: GITHUB_PAT=${PAT} OPENAI_KEY=${OPENAI}`)).toBe(`env-echo: GITHUB_PAT=${REDACTED} OPENAI_KEY=${REDACTED}`);
    expect(secrets.mask(`403 forbidden for ${CUSTOM}; tok_live_8h7g6f5e`)).toBe(`403 forbidden for ${REDACTED}; ${REDACTED}`);
    expect(secrets.mask('a text that mentions no secret')).toBe('a text that mentions no secret');
    const quoted = valueMask(['pa"ss\\word-1']);
    expect(quoted.mask(JSON.stringify({ p: 'pa"ss\\word-1' }))).toBe(`{"p":"${REDACTED}"}`);
  });

  it(`ignores values shorter than ${MIN_SECRET_CHARS} characters (they would mangle ordinary words)`, () => {
    const mask = valueMask(['debug', 'true', '8080', '  ab  ']);
    expect(mask.mask('debug: true on port 8080')).toBe('debug: true on port 8080');
  });

  it('masks the longest value first, so a secret containing another is masked whole', () => {
    expect(valueMask(['abcdefgh', 'abcdefgh-ijkl']).mask('x abcdefgh-ijkl y abcdefgh')).toBe(`x ${REDACTED} y ${REDACTED}`);
  });

  it('follows its sources: a changed config, a token read later', () => {
    let current = config();
    let token = '';
    const secrets = new SecretValues();
    secrets.track('config', () => current, configSecretValues);
    secrets.track(
      'token',
      () => token,
      (t) => [t],
    );
    expect(secrets.mask(`${PAT} hub-token-0123456789`)).toBe(`${REDACTED} hub-token-0123456789`);
    token = 'hub-token-0123456789';
    current = config({ servers: {} });
    expect(secrets.mask(`${PAT} hub-token-0123456789 ck-compress-1234567`)).toBe(`${PAT} ${REDACTED} ${REDACTED}`);
  });
});

describe('the event log masks known values', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('in what it keeps, publishes and writes; ids and enums are left as they are', async () => {
    dir = await mkdtemp(join(tmpdir(), 'spillway-secret-values-'));
    const secrets = new SecretValues();
    // A server id equal to a configured value must stay filterable.
    secrets.track(
      'config',
      () => ['github-server', PAT],
      (v) => v,
    );
    const log = new EventLog({ dir, retentionDays: 7, secrets, validate: true });
    const published: unknown[] = [];
    log.subscribe((e) => published.push(e));
    const stderr = log.emit({ type: 'upstream.stderr', level: 'debug', server: 'github-server', line: `GITHUB_PAT=${PAT} for github-server` });
    const prose = log.emit({ type: 'log', level: 'info', message: 'token budget exceeded; the token count is 5000' });
    expect(stderr).toMatchObject({ server: 'github-server', line: `GITHUB_PAT=${REDACTED} for ${REDACTED}` });
    expect(prose).toMatchObject({ message: 'token budget exceeded; the token count is 5000' });
    expect(published).toEqual([stderr, prose]);
    await log.close();
    const files = await readdir(dir);
    const written = (await Promise.all(files.map((f) => readFile(join(dir!, f), 'utf8')))).join('');
    expect(written).toContain('GITHUB_PAT=***');
    expect(written).not.toContain(PAT);
    expect(written).toContain('token budget exceeded');
  });
});

describe('server configs in answers', () => {
  const stdio = config().servers.gh as ServerConfig;
  const http = config().servers.web as ServerConfig;

  it('mask every env and header value whatever its key; empty values stay empty', () => {
    expect(maskServerSecrets(stdio)).toMatchObject({ env: { GITHUB_PAT: REDACTED, OPENAI_KEY: REDACTED, LOG_LEVEL: REDACTED, EMPTY: '' } });
    expect(maskServerSecrets(http)).toMatchObject({ headers: { 'X-Custom-Auth': REDACTED, Authorization: REDACTED } });
    expect(JSON.stringify([maskServerSecrets(stdio), maskServerSecrets(http)])).not.toMatch(/ghp_|sk-proj|xca-|tok_live/);
    // The other fields still get the secret-shaped text pass.
    expect(redactSecrets({ args: ['--url', 'https://u:pw12345@h/x'] })).toEqual({ args: ['--url', `https://u:${REDACTED}@h/x`] });
  });

  it('round-trip: masked values sent back keep the stored ones; changed and new values are taken', () => {
    const sent = maskServerSecrets(stdio);
    if (sent.type !== 'stdio') throw new Error('stdio expected');
    const next: ServerConfig = { ...sent, env: { ...sent.env, OPENAI_KEY: 'sk-new-value-999', NEW: 'x' } };
    expect(restoreMaskedSecrets(next, stdio)).toMatchObject({
      env: { GITHUB_PAT: PAT, OPENAI_KEY: 'sk-new-value-999', LOG_LEVEL: 'debug', EMPTY: '', NEW: 'x' },
    });
    // A mask under a new name stands for nothing stored (not even an inherited `constructor`): refused.
    expect(() => restoreMaskedSecrets({ ...next, env: { ...next.env, constructor: REDACTED } }, stdio)).toThrow(/constructor/);
  });
});
