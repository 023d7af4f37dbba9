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
    // Options on a command line (issue: audit s11, item 3).
    ['--token=abc123def456', `--token=${REDACTED}`],
    ['--api-key=sk-abcdef123456', `--api-key=${REDACTED}`],
    ['npx server --password hunter2xyz --port 80', `npx server --password ${REDACTED} --port 80`],
    ['run --api-key sk-abcdef123456', `run --api-key ${REDACTED}`],
    ['--password --verbose', '--password --verbose'],
    ['--token ${SPILLWAY_SECRET_ARG_1} --password $PGPASS', '--token ${SPILLWAY_SECRET_ARG_1} --password $PGPASS'],
    ['--max-tokens 4000 --tokenizer o200k', '--max-tokens 4000 --tokenizer o200k'],
    ['a well-known -v flag and x-token-ish words', 'a well-known -v flag and x-token-ish words'],
    // In an address: the scheme is not a key, so every parameter is judged, whatever its name.
    ['https://mcp.example.com/mcp?apitoken=abcdef123456', `https://mcp.example.com/mcp?apitoken=${REDACTED}`],
    ['https://x.com/mcp?region=eu&myToken=abcdef123456&page=2', `https://x.com/mcp?region=eu&myToken=${REDACTED}&page=2`],
    ['url: https://x.com/mcp?access_token=abc123def', `url: https://x.com/mcp?access_token=${REDACTED}`],
    ['{"url":"https://x.com/mcp?apitoken=abc123def"}', `{"url":"https://x.com/mcp?apitoken=${REDACTED}"}`],
    // A user name that reads like a key keeps the address readable: only the password goes.
    ['https://token:s3cretPass@db.example.com/x', `https://token:${REDACTED}@db.example.com/x`],
    ['postgresql://alice:s3cretPassw0rd@localhost/mydb', `postgresql://alice:${REDACTED}@localhost/mydb`],
    ['see https://example.com/docs/password-reset for help', 'see https://example.com/docs/password-reset for help'],
    // Credentials whose shape names them, behind a short option or in prose (noticed in session 11).
    ['curl -k sk-proj-AbCdEf0123456789XyZ_abcd https://api', `curl -k ${REDACTED} https://api`],
    ['the key is sk-ant-api03-abcdefghijklmnopqrstuv, keep it', `the key is ${REDACTED}, keep it`],
    ['GITHUB ghp_0123456789abcdefghijABCDEFGHIJ012345 ok', `GITHUB ${REDACTED} ok`],
    ['aws AKIAIOSFODNN7EXAMPLE used', `aws ${REDACTED} used`],
    ['xoxb-1234567890-abcdefghij in env', `${REDACTED} in env`],
    ['task-sk-items and desk-top are words', 'task-sk-items and desk-top are words'],
    // `key`, `sig` and `signature` are credentials as an address's parameters, not as keys elsewhere.
    ['GET https://maps.example.com/api?key=AbC123xyz&q=paris', `GET https://maps.example.com/api?key=${REDACTED}&q=paris`],
    ['https://blob.example.com/f.bin?sv=2024&sig=Zm9vYmFy%3D&se=1', `https://blob.example.com/f.bin?sv=2024&sig=${REDACTED}&se=1`],
    ['{"key": "user:42", "value": 7}', '{"key": "user:42", "value": 7}'],
    ['sort key=name', 'sort key=name'],
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
    ['options', '--password '.repeat(30_000)],
    ['dashes', '-a-'.repeat(100_000)],
    ['dashed keys', '--a=--a='.repeat(40_000)],
    ['token prefixes', 'sk-'.repeat(100_000)],
    ['a long key-shaped run', `sk-${'a'.repeat(300_000)}`],
    ['address keys', '?key=&key='.repeat(30_000)],
  ])('stays linear on a long pathological string: %s', (_name, input) => {
    expect(redactText(input).length).toBeGreaterThan(0);
  });

  it('is idempotent', () => {
    const once = redactText(
      'Authorization: Bearer abcdef token=xyz "secret": "s" --api-key sk-1 --token=t https://h/x?apitoken=abc ?key=k1x sk-abcdefghijklmnopqrstuvwx',
    );
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

  it('masks the word after a secret option in a list of command-line words', () => {
    const args = [
      '-y',
      'server',
      '--api-key',
      'sk-abcdef123456',
      '--password',
      'x',
      '--token',
      '--port',
      '80',
      '-p',
      '5432',
      '--password',
      '',
      '--token',
      '${SPILLWAY_SECRET_ARG_1}',
    ];
    expect(redactSecrets({ args })).toEqual({
      args: [
        '-y',
        'server',
        '--api-key',
        REDACTED,
        '--password',
        REDACTED,
        '--token',
        '--port',
        '80',
        '-p',
        '5432',
        '--password',
        '',
        '--token',
        '${SPILLWAY_SECRET_ARG_1}',
      ],
    });
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
