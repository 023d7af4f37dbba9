/**
 * The filled form as the catalog reads it (audit s19): a value pasted with spaces or a line break around
 * it is saved without them (a secret keeps its spaces, s20); a remote's address variables are all needed, so one left
 * empty is a problem naming its field, never an address saved with `{name}` or a hole in it.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { entryOptions, planOption, type EntryOption } from '../../electron/core/registry/launch-plan.js';
import { registryUpstream } from '../../electron/core/registry/registry-upstream.js';
import { ServerDetailSchema, type ServerDetail } from '../../electron/core/registry/server-json.js';

const FIXTURE = fileURLToPath(new URL('../../../shared/registry-fixture/data/servers/', import.meta.url));
const entry = (file: string): ServerDetail => ServerDetailSchema.parse(JSON.parse(readFileSync(join(FIXTURE, `${file}.json`), 'utf8')));
const first = (server: ServerDetail, kind: 'package' | 'remote'): EntryOption => entryOptions(server).find((o) => o.kind === kind)!;
const fill = (o: EntryOption, values: Record<string, string>) => planOption(o, { kind: 'values', values }, 'install');

describe('a pasted value', () => {
  it('is saved without its line break: a secret, which keeps its spaces (s20, registry-secret-spaces.test.ts)', () => {
    const plan = fill(first(entry('io.github.domdomegg__airtable-mcp-server@1.7.3'), 'package'), { 'env:AIRTABLE_API_KEY': 'patABC.123\n' });
    expect(plan.inputs.problems).toEqual([]);
    expect(plan.launch.type === 'stdio' && plan.launch.env.AIRTABLE_API_KEY).toBe('patABC.123');
    expect([...plan.inputs.secretValues]).toEqual(['patABC.123']);
  });

  it('is saved without them: a header, which could not be sent with its line break', () => {
    const remote = first(entry('com.neon__mcp@1.0.0'), 'remote');
    const plan = fill(remote, { 'header:Authorization': 'Bearer napi_abc123\n' });
    expect(plan.inputs.problems).toEqual([]);
    const upstream = registryUpstream(plan.launch, plan.inputs.secretValues, 'Neon');
    expect(upstream.secrets.headers.Authorization).toBe('Bearer napi_abc123');
  });

  it('is read without them: a choice and a boolean are accepted as chosen', () => {
    const terraform = first(entry('io.github.hashicorp__terraform-mcp-server@0.3.2'), 'package');
    const plan = fill(terraform, { 'var:tfe_skip_tls_verify': 'true ' });
    expect(plan.inputs.problems).toEqual([]);
    expect(plan.launch.type === 'stdio' && plan.launch.args).toContain('TFE_SKIP_TLS_VERIFY=true');
  });
});

describe('a remote address with a variable', () => {
  const server = ServerDetailSchema.parse({
    $schema: 'https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json',
    name: 'com.example/workspace-mcp',
    description: 'A remote server per workspace',
    version: '1.0.0',
    remotes: [
      {
        type: 'streamable-http',
        url: 'https://mcp.example.com/{workspace}/mcp',
        variables: { workspace: { description: 'Your workspace id' } },
      },
    ],
  });
  const remote = first(server, 'remote');

  it('asks for it as a required field', () => {
    expect(planOption(remote, { kind: 'preview' }, 'install').inputs.fields).toEqual([
      expect.objectContaining({ key: 'var:workspace', group: 'address', required: true }),
    ]);
  });

  it('refuses it left empty, naming the field', () => {
    expect(fill(remote, {}).inputs.problems).toEqual([{ key: 'var:workspace', message: 'workspace is required' }]);
    expect(fill(remote, { 'var:workspace': '  ' }).inputs.problems).toEqual([{ key: 'var:workspace', message: 'workspace is required' }]);
  });

  it('fills it in when given', () => {
    const plan = fill(remote, { 'var:workspace': ' acme ' });
    expect(plan.inputs.problems).toEqual([]);
    expect(plan.launch.type !== 'stdio' && plan.launch.url).toBe('https://mcp.example.com/acme/mcp');
  });
});
