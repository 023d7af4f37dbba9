/**
 * From a registry entry to what Spillway runs (issue 16): the command line of npm, pypi, OCI and NuGet
 * packages, remotes as HTTP/SSE upstreams, the form generated from declared arguments, variables, env
 * and headers, and the filled form as an upstream config with its secrets kept apart. The entries are
 * the real server.json files of the shared registry fixture, read in place.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { entryOptions, planOption, type EntryOption } from '../../electron/core/registry/launch-plan.js';
import { registryUpstream, withSecrets } from '../../electron/core/registry/registry-upstream.js';
import { expandSecretArgs } from '../../shared/config.js';
import { ServerDetailSchema, type ServerDetail } from '../../electron/core/registry/server-json.js';

const FIXTURE = fileURLToPath(new URL('../../../shared/registry-fixture/data/servers/', import.meta.url));
const entry = (file: string): ServerDetail => ServerDetailSchema.parse(JSON.parse(readFileSync(join(FIXTURE, `${file}.json`), 'utf8')));
const option = (file: string, kind: 'package' | 'remote', index = 0): EntryOption => {
  const found = entryOptions(entry(file)).find((o) => o.kind === kind && o.index === index);
  if (!found) throw new Error(`${file} has no ${kind} ${index}`);
  return found;
};
const fill = (o: EntryOption, values: Record<string, string>) => planOption(o, { kind: 'values', values });

describe('npm entry (airtable-mcp-server 1.7.3)', () => {
  const npm = option('io.github.domdomegg__airtable-mcp-server@1.7.3', 'package', 0);

  it('asks for its secret, required API key', () => {
    expect(planOption(npm, { kind: 'preview' }).inputs.fields).toEqual([
      expect.objectContaining({
        key: 'env:AIRTABLE_API_KEY',
        label: 'AIRTABLE_API_KEY',
        group: 'environment',
        required: true,
        secret: true,
        input: 'text',
      }),
    ]);
  });

  it('runs npx -y with the pinned version; the key stays out of the config and out of the summary', () => {
    const plan = fill(npm, { 'env:AIRTABLE_API_KEY': 'patSECRET123.abc' });
    expect(plan.inputs.problems).toEqual([]);
    expect(plan.launch).toEqual({
      type: 'stdio',
      command: 'npx',
      args: ['-y', 'airtable-mcp-server@1.7.3'],
      env: { AIRTABLE_API_KEY: 'patSECRET123.abc' },
    });
    expect(plan.summary).toBe('Runs on this computer: npx -y airtable-mcp-server@1.7.3, with the variable AIRTABLE_API_KEY (secret) set.');
    const upstream = registryUpstream(plan.launch, plan.inputs.secretValues, 'Airtable');
    expect(upstream.config).toMatchObject({ type: 'stdio', command: 'npx', env: {}, label: 'Airtable' });
    expect(JSON.stringify(upstream.config)).not.toContain('patSECRET123');
    expect(upstream.secrets).toEqual({ env: { AIRTABLE_API_KEY: 'patSECRET123.abc' }, headers: {} });
    expect(withSecrets(upstream)).toMatchObject({ env: { AIRTABLE_API_KEY: 'patSECRET123.abc' } });
  });

  it("a secret in the command line (a bundle's --token=${user_config.token}) becomes a placeholder and an env secret", () => {
    const launch = { type: 'stdio' as const, command: 'node', args: ['server.js', '--token=tok-SECRET-1', '--verbose', 'tok-SECRET-2'], env: {} };
    const upstream = registryUpstream(launch, new Set(['tok-SECRET-1', 'tok-SECRET-2']));
    expect(upstream.config).toMatchObject({ args: ['server.js', '${SPILLWAY_SECRET_ARG_1}', '--verbose', '${SPILLWAY_SECRET_ARG_2}'], env: {} });
    expect(JSON.stringify(upstream.config)).not.toContain('SECRET-');
    expect(upstream.secrets.env).toEqual({ SPILLWAY_SECRET_ARG_1: '--token=tok-SECRET-1', SPILLWAY_SECRET_ARG_2: 'tok-SECRET-2' });
    expect(upstream.secretArgs).toBe(2);
    const config = withSecrets(upstream);
    expect(config.type === 'stdio' && expandSecretArgs(config.args, config.env)).toEqual(launch.args);
    // A placeholder with no value, and anything else, is left as written.
    expect(expandSecretArgs(['${SPILLWAY_SECRET_ARG_3}', '${HOME}', 'x${SPILLWAY_SECRET_ARG_1}'], { SPILLWAY_SECRET_ARG_1: 'v' })).toEqual([
      '${SPILLWAY_SECRET_ARG_3}',
      '${HOME}',
      'x${SPILLWAY_SECRET_ARG_1}',
    ]);
  });

  it('refuses the form without the required key, naming the field', () => {
    expect(fill(npm, {}).inputs.problems).toEqual([{ key: 'env:AIRTABLE_API_KEY', message: 'AIRTABLE_API_KEY is required' }]);
  });
});

describe('pypi entries', () => {
  it('uvx with runtime arguments and a named argument that takes a default (serena)', () => {
    const pypi = option('io.github.oraios__serena@1.5.3', 'package');
    const fields = planOption(pypi, { kind: 'preview' }).inputs.fields;
    expect(fields).toEqual([
      expect.objectContaining({ key: 'arg:runtime:3', label: '--context', default: 'desktop-app', required: false, group: 'arguments' }),
    ]);
    expect(fill(pypi, {}).launch).toEqual({
      type: 'stdio',
      command: 'uvx',
      args: ['-p', '3.13', 'start-mcp-server', '--project-from-cwd', '--context', 'desktop-app', 'serena-agent==1.5.3'],
      env: {},
    });
    expect(fill(pypi, { 'arg:runtime:3': 'ide' }).launch).toMatchObject({ args: expect.arrayContaining(['--context', 'ide']) });
  });

  it('a positional package argument with a valueHint is asked for (Scrapling)', () => {
    const pypi = option('io.github.D4Vinci__Scrapling@0.4.14', 'package');
    expect(planOption(pypi, { kind: 'preview' }).inputs.fields).toEqual([
      expect.objectContaining({ key: 'arg:package:0', label: 'mcp', input: 'text' }),
    ]);
    expect(fill(pypi, { 'arg:package:0': 'mcp' }).launch).toMatchObject({ command: 'uvx', args: ['scrapling==0.4.14', 'mcp'] });
  });
});

describe('OCI entries', () => {
  it('terraform 1.2.0: docker run -i --rm is added, variables fill -e values, a secret moves off the command line', () => {
    const oci = option('io.github.hashicorp__terraform-mcp-server@1.2.0', 'package');
    const fields = planOption(oci, { kind: 'preview' }).inputs.fields;
    expect(fields.map((f) => [f.key, f.input, f.secret, f.default])).toEqual([
      ['var:address', 'text', false, 'https://app.terraform.io'],
      ['var:token', 'text', true, undefined],
      ['var:enabled', 'boolean', false, 'false'],
    ]);
    const plan = fill(oci, { 'var:token': 'tfe-SECRET-token', 'var:enabled': 'true' });
    expect(plan.launch).toEqual({
      type: 'stdio',
      command: 'docker',
      args: [
        'run',
        '-i',
        '--rm',
        '-e',
        'TFE_ADDRESS=https://app.terraform.io',
        '-e',
        'TFE_TOKEN',
        '-e',
        'ENABLE_TF_OPERATIONS=true',
        'docker.io/hashicorp/terraform-mcp-server:1.2.0',
      ],
      env: { TFE_TOKEN: 'tfe-SECRET-token' },
    });
    expect(plan.summary).not.toContain('tfe-SECRET-token');
    expect(fill(oci, { 'var:enabled': 'yes' }).inputs.problems).toEqual([
      { key: 'var:enabled', message: 'ENABLE_TF_OPERATIONS (enabled): must be true or false' },
    ]);
  });

  it('terraform 0.3.2: runtime arguments that hold run and the image are not doubled; env set by -e is not asked twice', () => {
    const oci = option('io.github.hashicorp__terraform-mcp-server@0.3.2', 'package');
    const fields = planOption(oci, { kind: 'preview' }).inputs.fields;
    expect(fields.some((f) => f.key.startsWith('env:'))).toBe(false);
    expect(fields.find((f) => f.key === 'var:mcp_cors_mode')).toMatchObject({
      input: 'select',
      choices: ['strict', 'development', 'disabled'],
      default: 'strict',
    });
    expect(fields.find((f) => f.key === 'var:mcp_tls_cert_file')).toMatchObject({ input: 'filepath' });
    const args = (fill(oci, {}).launch as { args: string[] }).args;
    expect(args.slice(0, 3)).toEqual(['run', '--rm', '-i']);
    expect(args.filter((a) => a.includes('terraform-mcp-server'))).toEqual(['hashicorp/terraform-mcp-server:0.3.2']);
    expect(args.at(-1)).toBe('hashicorp/terraform-mcp-server:0.3.2');
    expect(args).not.toContain('TFE_TOKEN=');
    expect(fill(oci, { 'var:mcp_cors_mode': 'loose' }).inputs.problems[0]).toEqual({
      key: 'var:mcp_cors_mode',
      message: 'mcp_cors_mode: choose one of strict, development, disabled',
    });
  });

  it('airtable image: env values reach the container as -e NAME, before the image', () => {
    const plan = fill(option('io.github.domdomegg__airtable-mcp-server@1.7.3', 'package', 1), { 'env:AIRTABLE_API_KEY': 'patKEY-42-abc' });
    expect(plan.launch).toEqual({
      type: 'stdio',
      command: 'docker',
      args: ['run', '-i', '--rm', '-e', 'AIRTABLE_API_KEY', 'docker.io/domdomegg/airtable-mcp-server:1.7.3'],
      env: { AIRTABLE_API_KEY: 'patKEY-42-abc' },
    });
  });

  it('the package that serves HTTP after it starts and the MCPB bundle are refused with the reason', () => {
    expect(() => planOption(option('io.github.hashicorp__terraform-mcp-server@0.3.2', 'package', 1), { kind: 'preview' })).toThrow(
      /serves over HTTP/,
    );
    expect(() => planOption(option('io.github.domdomegg__airtable-mcp-server@1.7.3', 'package', 2), { kind: 'preview' })).toThrow(/MCPB/);
  });
});

describe('NuGet and named arguments', () => {
  it('dnx with the pinned version', () => {
    expect(fill(option('io.github.domdomegg__time-mcp-nuget@1.0.8', 'package'), {}).launch).toEqual({
      type: 'stdio',
      command: 'dnx',
      args: ['TimeMcpServer@1.0.8', '--yes'],
      env: {},
    });
  });

  it('mongodb: named arguments are asked for, formats checked, numbers and booleans passed as text', () => {
    const npm = option('io.github.mongodb-js__mongodb-mcp-server@2.1.0', 'package');
    const fields = planOption(npm, { kind: 'preview' }).inputs.fields;
    expect(fields.find((f) => f.key === 'arg:package:0')).toMatchObject({ label: '--allowRequestOverrides', input: 'boolean' });
    expect(fields.find((f) => f.key === 'env:MDB_MCP_API_CLIENT_SECRET')).toMatchObject({ secret: true });
    const plan = fill(npm, { 'arg:package:4': '60000', 'arg:package:38': 'true' });
    expect(plan.inputs.problems).toEqual([]);
    expect(plan.launch).toMatchObject({
      args: ['-y', 'mongodb-mcp-server@2.1.0', '--atlasTemporaryDatabaseUserLifetimeMs', '60000', '--readOnly', 'true'],
    });
    expect(fill(npm, { 'arg:package:4': 'an hour' }).inputs.problems).toEqual([
      { key: 'arg:package:4', message: '--atlasTemporaryDatabaseUserLifetimeMs: must be a number' },
    ]);
  });
});

describe('remote entries', () => {
  it('neon: a Streamable HTTP upstream with a secret header kept apart and a boolean header with its default', () => {
    const remote = option('com.neon__mcp@0.8.0', 'remote', 0);
    expect(planOption(remote, { kind: 'preview' }).inputs.fields).toEqual([
      expect.objectContaining({ key: 'header:Authorization', group: 'headers', secret: true, required: false }),
      expect.objectContaining({ key: 'header:x-read-only', input: 'boolean', default: 'false' }),
    ]);
    const plan = fill(remote, { 'header:Authorization': 'Bearer neon-SECRET-key' });
    expect(plan.launch).toEqual({
      type: 'http',
      url: 'https://mcp.neon.tech/mcp',
      headers: { Authorization: 'Bearer neon-SECRET-key', 'x-read-only': 'false' },
    });
    expect(plan.summary).toBe('Connects to https://mcp.neon.tech/mcp over Streamable HTTP, sending the headers Authorization (secret), x-read-only.');
    const upstream = registryUpstream(plan.launch, plan.inputs.secretValues);
    expect(upstream.config).toMatchObject({ type: 'http', url: 'https://mcp.neon.tech/mcp', headers: { 'x-read-only': 'false' } });
    expect(upstream.secrets.headers).toEqual({ Authorization: 'Bearer neon-SECRET-key' });
  });

  it('an SSE remote becomes an SSE upstream', () => {
    expect(fill(option('com.neon__mcp@0.8.0', 'remote', 1), {}).launch).toMatchObject({ type: 'sse', url: 'https://mcp.neon.tech/sse' });
  });

  it('URL variables are asked for and filled in; an undeclared {name} stays as written', () => {
    const remote: EntryOption = {
      kind: 'remote',
      index: 0,
      remote: {
        type: 'streamable-http',
        url: 'https://{tenant}.example.com/mcp/{other}',
        variables: { tenant: { description: 'Your tenant', isRequired: true } },
      },
    };
    expect(planOption(remote, { kind: 'preview' }).inputs.fields).toEqual([
      expect.objectContaining({ key: 'var:tenant', group: 'address', required: true }),
    ]);
    expect(fill(remote, { 'var:tenant': 'acme' }).launch).toMatchObject({ url: 'https://acme.example.com/mcp/{other}' });
    expect(fill(remote, {}).inputs.problems).toEqual([{ key: 'var:tenant', message: 'tenant is required' }]);
  });
});

describe('secret inputs an entry does not mark', () => {
  it('asks for an argument named like a secret in a password field (mongodb --apiClientSecret), and keeps the rest plain', () => {
    const fields = planOption(option('io.github.mongodb-js__mongodb-mcp-server@2.1.0', 'package'), { kind: 'preview' }).inputs.fields;
    const byLabel = (label: string) => fields.find((f) => f.label === label);
    expect(byLabel('--apiClientSecret')).toMatchObject({ secret: true });
    expect(byLabel('--apiClientId')).toMatchObject({ secret: false });
    expect(byLabel('--dryRun')?.secret).toBe(false);
  });
});
