/**
 * How messages name the npm registry's address (audit s20): a token it carries is masked wherever the
 * message repeats it (a package or tarball address under another path or host, the address given with a
 * query), a `key=token` part named like a secret is masked, and a repository's own name is kept even
 * when it is long and holds digits (`npm-virtual-repository-2024`).
 */
import { describe, expect, it } from 'vitest';
import { installFailure, registryOrigin } from '../../electron/core/registry/install/npm-failure.js';

const TOKEN = 'npmTok3nSecretValue42';
const failure = (message: string) => Object.assign(new Error(message), { code: 'E403' });

describe('registryOrigin', () => {
  it.each([
    ['https://reg.example.com/_auth/npmTok3nSecretValue42/', 'https://reg.example.com/_auth/***/'],
    ['https://reg.example.com/t/8f4b2c1e-1234-4bcd-9def-0123456789ab/', 'https://reg.example.com/t/***/'],
    ['https://reg.example.com/npm/?token=abc123', 'https://reg.example.com/npm/'],
    ['https://reg.example.com/:_authToken=abcdefSECRET/', 'https://reg.example.com/:_authToken=***/'],
    ['https://reg.example.com/_password=hunter2hunter/npm/', 'https://reg.example.com/_password=***/npm/'],
    [
      'https://artifactory.example.com/artifactory/api/npm/npm-virtual-repository-2024/',
      'https://artifactory.example.com/artifactory/api/npm/npm-virtual-repository-2024/',
    ],
    ['https://nexus.example.com/repository/npm-group.mirror.eu-west-2024/', 'https://nexus.example.com/repository/npm-group.mirror.eu-west-2024/'],
    [
      'https://gitlab.example.com/api/v4/projects/12345678901234567890/packages/npm/',
      'https://gitlab.example.com/api/v4/projects/12345678901234567890/packages/npm/',
    ],
  ])('%s → %s', (given, shown) => {
    expect(registryOrigin(given)).toBe(shown);
  });
});

describe('installFailure', () => {
  it('masks the path token where the message names it under another address (a tarball on another host)', () => {
    const registry = `https://reg.example.com/_auth/${TOKEN}/`;
    const message = installFailure(
      failure(`403 Forbidden - GET https://cdn.example.com/_auth/${TOKEN}/airtable-mcp-server/-/airtable-mcp-server-1.7.4.tgz`),
      'airtable-mcp-server@1.7.4',
      registry,
    ).message;
    expect(message).not.toContain(TOKEN);
    expect(message).toContain('https://cdn.example.com/_auth/***/airtable-mcp-server/-/airtable-mcp-server-1.7.4.tgz');
  });

  it('masks the path token of an address given with a query, which the request leaves out', () => {
    const registry = `https://reg.example.com/_auth/${TOKEN}/?cache=no`;
    const message = installFailure(
      failure(`403 Forbidden - GET https://reg.example.com/_auth/${TOKEN}/airtable-mcp-server`),
      'x@1.0.0',
      registry,
    ).message;
    expect(message).not.toContain(TOKEN);
    expect(message).toContain('https://reg.example.com/_auth/***/airtable-mcp-server');
  });

  it('masks a token written into the path as key=value, and a query’s values', () => {
    const registry = `https://reg.example.com/:_authToken=abcdefSECRET/npm/?key=qWERTYsecret`;
    const message = installFailure(
      failure(`403 Forbidden - GET https://reg.example.com/:_authToken=abcdefSECRET/npm/pkg (key qWERTYsecret refused)`),
      'pkg@1.0.0',
      registry,
    ).message;
    expect(message).not.toContain('abcdefSECRET');
    expect(message).not.toContain('qWERTYsecret');
  });
});
