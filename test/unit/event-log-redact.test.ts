import { describe, expect, it } from 'vitest';
import { REDACTED, isSensitiveKey, redactSecrets, redactText } from '../../electron/core/log/redact.js';

describe('isSensitiveKey', () => {
  it.each([
    ['authorization', true],
    ['Authorization', true],
    ['Proxy-Authorization', true],
    ['token', true],
    ['access_token', true],
    ['refreshToken', true],
    ['GITHUB_PERSONAL_ACCESS_TOKEN', true],
    ['api_key', true],
    ['apiKey', true],
    ['x-api-key', true],
    ['OPENAI_API_KEY', true],
    ['secret', true],
    ['client_secret', true],
    ['AWS_SECRET_ACCESS_KEY', true],
    ['password', true],
    ['DB_PASSWORD', true],
    ['cookie', true],
    ['Set-Cookie', true],
    ['private_key', true],
    // counters and ordinary fields that merely mention tokens stay readable
    ['tokensUpstream', false],
    ['tokensDelivered', false],
    ['maxTokens', false],
    ['tokenizer', false],
    ['tools', false],
    ['server', false],
    ['session', false],
    ['message', false],
    ['pass', false],
    ['', false],
  ])('%s -> %s', (key, expected) => {
    expect(isSensitiveKey(key)).toBe(expected);
  });
});

describe('redactText', () => {
  it.each([
    ['Authorization: Bearer sk-abc123def456', `Authorization: Bearer ${REDACTED}`],
    ['got 401 with bearer eyJhbGciOi.payload.sig', `got 401 with bearer ${REDACTED}`],
    ['Basic dXNlcjpwYXNzd29yZA==', `Basic ${REDACTED}`],
    ['GET /v1/items?api_key=abc123&page=2', `GET /v1/items?api_key=${REDACTED}&page=2`],
    ['token=abc password=hunter2 user=bob', `token=${REDACTED} password=${REDACTED} user=bob`],
    ['{"query":"cats","api_key":"sk-live-1234","limit":5}', `{"query":"cats","api_key":"${REDACTED}","limit":5}`],
    ["{'password': 'p4ss', 'user': 'x'}", `{'password': '${REDACTED}', 'user': 'x'}`],
    ['{"tokensUpstream": 1234, "tokens": 5}', '{"tokensUpstream": 1234, "tokens": 5}'],
    ['connecting to https://admin:s3cret@db.example.com/x', `connecting to https://admin:${REDACTED}@db.example.com/x`],
    ['plain log line without secrets', 'plain log line without secrets'],
    ['', ''],
    ['short', 'short'],
  ])('%s', (input, expected) => {
    expect(redactText(input)).toBe(expected);
  });

  // Regression: unbounded patterns took minutes on a 300 KB stderr line (the test timeout catches that).
  it.each([
    ['one repeated letter', 'x'.repeat(300_000)],
    ['dotted words', 'a.'.repeat(150_000)],
    ['unterminated quotes', 'a:"'.repeat(100_000)],
    ['a key then spaces', `key${' '.repeat(300_000)}`],
    ['scheme words', 'Bearer '.repeat(40_000)],
    ['url fragments', 'http://a:'.repeat(30_000)],
  ])('stays linear on a long pathological string: %s', (_name, input) => {
    expect(redactText(input).length).toBeGreaterThan(0);
  });

  it('is idempotent', () => {
    const once = redactText('Authorization: Bearer abcdef token=xyz "secret": "s"');
    expect(redactText(once)).toBe(once);
  });
});

describe('redactSecrets', () => {
  it('masks values under sensitive keys at any depth and leaves the rest alone', () => {
    const config = {
      name: 'github',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-github'],
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_123456', LOG_LEVEL: 'debug', EMPTY_TOKEN: '' },
      headers: { Authorization: 'Bearer abc', 'X-Trace': '1', 'x-api-key': 42 },
      nested: [{ password: ['a', 'b'] }, { ok: true }],
      tokensUpstream: 99,
    };
    expect(redactSecrets(config)).toEqual({
      name: 'github',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-github'],
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: REDACTED, LOG_LEVEL: 'debug', EMPTY_TOKEN: '' },
      headers: { Authorization: REDACTED, 'X-Trace': '1', 'x-api-key': REDACTED },
      nested: [{ password: REDACTED }, { ok: true }],
      tokensUpstream: 99,
    });
  });

  it('recurses into an object under a sensitive key instead of hiding its shape', () => {
    expect(redactSecrets({ credentials: { user: 'bob', password: 'x' } })).toEqual({
      credentials: { user: 'bob', password: REDACTED },
    });
  });

  it('scans strings in arrays and values, and does not mutate its input', () => {
    const input = { line: 'curl -H "Authorization: Bearer abcdef"', list: ['token=abc'] };
    const out = redactSecrets(input);
    expect(out).toEqual({ line: `curl -H "Authorization: Bearer ${REDACTED}"`, list: [`token=${REDACTED}`] });
    expect(input.line).toBe('curl -H "Authorization: Bearer abcdef"');
  });

  it('passes primitives and non-plain objects through', () => {
    const date = new Date(0);
    expect(redactSecrets(5)).toBe(5);
    expect(redactSecrets(null)).toBe(null);
    expect(redactSecrets(undefined)).toBe(undefined);
    expect(redactSecrets(date)).toBe(date);
    // ("Bearer" followed by a plain word is prose: see secret-values.test.ts)
    expect(redactSecrets('Bearer abc123def')).toBe(`Bearer ${REDACTED}`);
  });
});
