/**
 * A secret typed or pasted into the catalog's add form keeps its spaces (s20): a password may begin or end
 * with one, and the masked field would not show that it was dropped. Only line breaks at its ends go (a
 * one-line field cannot hold them, a header cannot carry them). Other fields are still trimmed.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpbManifestAny } from '@anthropic-ai/mcpb';
import { entryOptions, planOption, type EntryOption } from '../../electron/core/registry/launch-plan.js';
import { registryUpstream } from '../../electron/core/registry/registry-upstream.js';
import { ServerDetailSchema, type ServerDetail } from '../../electron/core/registry/server-json.js';
import { bundleValues } from '../../electron/core/registry/mcpb/bundle-settings.js';

const FIXTURE = fileURLToPath(new URL('../../../shared/registry-fixture/data/servers/', import.meta.url));
const entry = (file: string): ServerDetail => ServerDetailSchema.parse(JSON.parse(readFileSync(join(FIXTURE, `${file}.json`), 'utf8')));
const first = (server: ServerDetail, kind: 'package' | 'remote'): EntryOption => entryOptions(server).find((o) => o.kind === kind)!;
const fill = (o: EntryOption, values: Record<string, string>) => planOption(o, { kind: 'values', values }, 'install');

describe('a secret field of a registry entry (isSecret)', () => {
  const airtable = () => first(entry('io.github.domdomegg__airtable-mcp-server@1.7.3'), 'package');

  it('keeps the spaces around its value, and loses only a line break at its end', () => {
    const plan = fill(airtable(), { 'env:AIRTABLE_API_KEY': ' pass phrase \n' });
    expect(plan.inputs.problems).toEqual([]);
    expect(plan.launch.type === 'stdio' && plan.launch.env.AIRTABLE_API_KEY).toBe(' pass phrase ');
    expect([...plan.inputs.secretValues]).toEqual([' pass phrase ']);
  });

  it('is still empty when it holds nothing but blanks', () => {
    const plan = fill(airtable(), { 'env:AIRTABLE_API_KEY': '  \n' });
    expect(plan.inputs.problems).toEqual([{ key: 'env:AIRTABLE_API_KEY', message: expect.stringContaining('is required') }]);
  });

  it('a secret header sent without its line break', () => {
    const plan = fill(first(entry('com.neon__mcp@1.0.0'), 'remote'), { 'header:Authorization': 'Bearer napi_abc123\r\n' });
    const upstream = registryUpstream(plan.launch, plan.inputs.secretValues, 'Neon');
    expect(upstream.secrets.headers.Authorization).toBe('Bearer napi_abc123');
  });

  it('a field that is not secret is trimmed as before', () => {
    const remote = first(entry('com.neon__mcp@1.0.0'), 'remote');
    const plan = fill(remote, { 'header:Authorization': ' k ', 'header:x-read-only': ' true ' });
    expect(plan.inputs.problems).toEqual([]);
    expect(plan.launch.type !== 'stdio' && plan.launch.headers).toMatchObject({ 'x-read-only': 'true' });
  });
});

describe('a sensitive setting of an MCPB bundle', () => {
  const manifest: McpbManifestAny = {
    manifest_version: '0.3',
    name: 'settings',
    version: '1.0.0',
    description: 'A bundle with settings.',
    author: { name: 'tests' },
    server: { type: 'node', entry_point: 'index.js', mcp_config: { command: 'node', args: [] } },
    user_config: {
      token: { type: 'string', title: 'Token', description: 'The API token', required: true, sensitive: true },
      user: { type: 'string', title: 'User', description: 'Your name' },
    },
  };

  it('keeps its spaces; a setting that is not sensitive is trimmed', () => {
    const out = bundleValues(manifest, { 'setting:token': ' tok 1 \n', 'setting:user': ' ann ' });
    expect(out.problems).toEqual([]);
    expect(out.userConfig).toEqual({ token: ' tok 1 ', user: 'ann' });
    expect([...out.secretValues]).toEqual([' tok 1 ']);
    expect(bundleValues(manifest, { 'setting:token': ' \n ' }).problems).toEqual([{ key: 'setting:token', message: 'Token is required' }]);
  });
});
