/** An MCPB manifest's user_config as form fields, and the filled form back as userConfig (issue 16). */
import { describe, expect, it } from 'vitest';
import type { McpbManifestAny } from '@anthropic-ai/mcpb';
import { bundleFields, bundleValues } from '../../electron/core/registry/mcpb/bundle-settings.js';

const manifest: McpbManifestAny = {
  manifest_version: '0.3',
  name: 'settings',
  version: '1.0.0',
  description: 'A bundle with settings.',
  author: { name: 'tests' },
  server: { type: 'node', entry_point: 'index.js', mcp_config: { command: 'node', args: [] } },
  user_config: {
    token: { type: 'string', title: 'Token', description: 'The API token', required: true, sensitive: true },
    depth: { type: 'number', title: 'Depth', description: 'How deep', default: 2, min: 1, max: 5 },
    verbose: { type: 'boolean', title: 'Verbose', description: 'Log more', default: false },
    roots: { type: 'directory', title: 'Folders', description: 'Allowed folders', multiple: true, default: ['${HOME}/a', '${HOME}/b'] },
    file: { type: 'file', title: 'Config file', description: 'Optional' },
  },
};

describe('bundle settings', () => {
  it('become form fields: required, secret, number bounds, booleans, paths, several folders one per line', () => {
    expect(bundleFields(manifest)).toEqual([
      { key: 'setting:token', label: 'Token', description: 'The API token', group: 'settings', required: true, secret: true, input: 'text' },
      {
        key: 'setting:depth',
        label: 'Depth',
        description: 'How deep',
        group: 'settings',
        required: false,
        secret: false,
        input: 'number',
        default: '2',
        min: 1,
        max: 5,
      },
      {
        key: 'setting:verbose',
        label: 'Verbose',
        description: 'Log more',
        group: 'settings',
        required: false,
        secret: false,
        input: 'boolean',
        default: 'false',
      },
      {
        key: 'setting:roots',
        label: 'Folders',
        description: 'Allowed folders',
        group: 'settings',
        required: false,
        secret: false,
        input: 'filepath',
        default: '${HOME}/a\n${HOME}/b',
        placeholder: 'A folder path',
        repeated: true,
      },
      {
        key: 'setting:file',
        label: 'Config file',
        description: 'Optional',
        group: 'settings',
        required: false,
        secret: false,
        input: 'filepath',
        placeholder: 'A file path',
      },
    ]);
  });

  it('the filled form gives typed values; empty ones are left to the manifest default; the secret is collected', () => {
    const out = bundleValues(manifest, {
      'setting:token': 'tok-1\n',
      'setting:depth': '3',
      'setting:verbose': 'true',
      'setting:roots': '/x\n\n /y ',
      'setting:file': '',
    });
    expect(out.problems).toEqual([]);
    expect(out.userConfig).toEqual({ token: 'tok-1', depth: 3, verbose: true, roots: ['/x', '/y'] });
    expect([...out.secretValues]).toEqual(['tok-1']);
  });

  it('refuses a missing required value, a number out of bounds or not a number, and a boolean that is neither', () => {
    expect(bundleValues(manifest, {}).problems).toEqual([{ key: 'setting:token', message: 'Token is required' }]);
    const bad = bundleValues(manifest, { 'setting:token': 't', 'setting:depth': '0', 'setting:verbose': 'yes' });
    expect(bad.problems).toEqual([
      { key: 'setting:depth', message: 'Depth: must be at least 1' },
      { key: 'setting:verbose', message: 'Verbose: must be true or false' },
    ]);
    expect(bundleValues(manifest, { 'setting:token': 't', 'setting:depth': 'deep' }).problems[0].message).toBe('Depth: must be a number');
  });
});
