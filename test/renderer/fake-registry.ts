/**
 * The `registry.*` methods of the fake backend, answering with what the hub answered for the shared
 * registry fixture's entries (captured from registry-handlers.ts; a page size of 3). Add checks values
 * as the hub does (entry-inputs.ts: "<label> is required", "<label>: must be true or false").
 */
import type { Res } from '../../shared/api.js';
import type { RegistryFormField, RegistryOption, RegistryServer } from '../../shared/api-registry.js';
import { ServerConfigSchema } from '../../shared/config.js';
import type { FakeBackend, Handlers } from './fake-backend.js';

const active = { status: 'active' } as const;

export const REGISTRY_SERVERS: RegistryServer[] = [
  {
    name: 'com.100hires/100hires',
    version: '1.0.2',
    title: '100Hires',
    description: 'Official MCP server for 100Hires ATS: candidates, jobs, applications, interviews, messages.',
    websiteUrl: 'https://100hires.com/mcp',
    repository: 'https://github.com/100Hires/mcp',
    kinds: ['remote'],
    ...active,
  },
  {
    name: 'com.neon/mcp',
    version: '1.0.0',
    title: 'Neon',
    description: 'Official Neon MCP server for managing Neon projects and Lakebase Postgres databases.',
    icon: { src: 'https://neon.com/brand/neon-logo-light-color.svg', mimeType: 'image/svg+xml', theme: 'light' },
    websiteUrl: 'https://neon.com/docs/ai/neon-mcp-server',
    repository: 'https://github.com/neondatabase/mcp-server-neon',
    kinds: ['remote'],
    ...active,
  },
  {
    name: 'com.textarttools/textarttools-mcp',
    version: '1.1.0',
    description: 'Transform text with 23 Unicode styles and create stylized banners with 322+ figlet fonts.',
    websiteUrl: 'https://humanjesse.github.io/textarttools-mcp/',
    repository: 'https://github.com/humanjesse/textarttools-mcp',
    kinds: ['remote'],
    status: 'deprecated',
  },
  {
    name: 'io.github.domdomegg/time-mcp-nuget',
    version: '1.0.8',
    description: 'Get the current UTC time in RFC 3339 format.',
    repository: 'https://github.com/domdomegg/time-mcp-nuget.git',
    kinds: ['nuget'],
    ...active,
  },
  {
    name: 'io.github.hashicorp/terraform-mcp-server',
    version: '1.2.0',
    title: 'Terraform',
    description: 'Generate more accurate Terraform and automate workflows for HCP Terraform and Terraform Enterprise',
    repository: 'https://github.com/hashicorp/terraform-mcp-server',
    kinds: ['oci'],
    ...active,
  },
];

const TERRAFORM_SUMMARY =
  'Runs on this computer: docker run -i --rm -e TFE_ADDRESS=https://app.terraform.io -e ENABLE_TF_OPERATIONS=false docker.io/hashicorp/terraform-mcp-server:1.2.0.';

export const REGISTRY_OPTIONS: Record<string, RegistryOption[]> = {
  'io.github.hashicorp/terraform-mcp-server': [
    {
      kind: 'package',
      index: 0,
      label: 'Container image docker.io/hashicorp/terraform-mcp-server:1.2.0',
      summary: TERRAFORM_SUMMARY,
      supported: true,
      runtime: { command: 'docker', present: true },
    },
  ],
  'io.github.domdomegg/time-mcp-nuget': [
    {
      kind: 'package',
      index: 0,
      label: 'nuget package TimeMcpServer 1.0.8',
      summary: 'Runs on this computer: dnx TimeMcpServer@1.0.8 --yes.',
      supported: true,
      runtime: {
        command: 'dnx',
        present: false,
        missing:
          'This server needs the .NET 10 SDK, which is not on this computer ("dnx" was not found). Install the .NET 10 SDK (or newer) from https://dotnet.microsoft.com/download, then add the server again.',
      },
    },
  ],
  'com.neon/mcp': [
    {
      kind: 'remote',
      index: 0,
      label: 'Remote server (Streamable HTTP)',
      summary: 'Connects to https://mcp.neon.tech/mcp over Streamable HTTP, sending the header x-read-only.',
      supported: true,
    },
  ],
};

export const REGISTRY_FIELDS: Record<string, RegistryFormField[]> = {
  'io.github.hashicorp/terraform-mcp-server': [
    { key: 'var:address', label: 'address', group: 'arguments', required: false, secret: false, input: 'text', default: 'https://app.terraform.io' },
    { key: 'var:token', label: 'token', group: 'arguments', required: false, secret: true, input: 'text' },
    { key: 'var:enabled', label: 'enabled', group: 'arguments', required: false, secret: false, input: 'boolean', default: 'false' },
  ],
  // Neon's Authorization is optional in the registry; marked required here to show the required path.
  'com.neon/mcp': [
    {
      key: 'header:Authorization',
      label: 'Authorization',
      description: 'Optional Bearer token with a Neon API key.',
      group: 'headers',
      required: true,
      secret: true,
      input: 'text',
    },
    {
      key: 'header:x-read-only',
      label: 'x-read-only',
      description: 'Optional header to enable read-only mode for tool filtering.',
      group: 'headers',
      required: false,
      secret: false,
      input: 'boolean',
      default: 'false',
    },
  ],
};

/** An entry with an npm package, opened directly (not in the search pages above): its added servers' Update and Go back. */
export const AIRTABLE: RegistryServer = {
  name: 'io.github.domdomegg/airtable-mcp-server',
  version: '1.7.4',
  description: 'Read and write access to Airtable databases.',
  repository: 'https://github.com/domdomegg/airtable-mcp-server',
  kinds: ['npm'],
  ...active,
};

const AIRTABLE_OPTION: RegistryOption = {
  kind: 'package',
  index: 0,
  label: 'npm package airtable-mcp-server 1.7.4',
  summary: "Installs airtable-mcp-server 1.7.4 into Spillway's data folder and runs it with Spillway's own runtime.",
  supported: true,
  installs: { name: 'airtable-mcp-server', version: '1.7.4' },
};

/** What the hub answers `registry.installed` with, for an added server. */
type Installed = Res<'registry.installed'>;

const PAGE = 3;

export class FakeRegistry {
  /** Set to answer as the hub does when the registry is down but an earlier answer was kept. */
  cachedNotice: string | undefined;
  /** With cachedNotice: nothing was kept either, so only the servers that come with Spillway (none here) were searched. */
  builtIn = false;
  /** Added servers running AIRTABLE's npm package (seeded by a test), by id: what `registry.installed` answers. */
  readonly installed = new Map<string, Installed>();

  constructor(private readonly backend: FakeBackend) {}

  #cached() {
    if (!this.cachedNotice) return {};
    return { cached: { at: '2026-11-24T09:00:00.000Z', notice: this.cachedNotice, ...(this.builtIn ? { builtIn: true } : {}) } };
  }

  #option(name: string, req: { package?: number; remote?: number }): RegistryOption | undefined {
    const kind = req.package !== undefined ? 'package' : 'remote';
    return REGISTRY_OPTIONS[name]?.find((o) => o.kind === kind && o.index === (req.package ?? req.remote));
  }

  readonly handlers: Handlers = {
    'registry.search': (req) => {
      // As the hub searches (catalog-search.ts): every word in the name, title or description.
      const words = (req.query ?? '').toLowerCase().split(/\s+/).filter(Boolean);
      const text = (s: RegistryServer) => `${s.name} ${s.title ?? ''} ${s.description}`.toLowerCase();
      const matching = this.builtIn ? [] : REGISTRY_SERVERS.filter((s) => words.every((w) => text(s).includes(w)));
      const start = req.cursor ? matching.findIndex((s) => `${s.name}:${s.version}` === req.cursor) + 1 : 0;
      const servers = matching.slice(start, start + PAGE);
      const last = servers.at(-1);
      const full = servers.length === PAGE && last;
      return { ok: true, value: { servers, skipped: 0, ...(full ? { nextCursor: `${last.name}:${last.version}` } : {}), ...this.#cached() } };
    },
    'registry.get': (req) => {
      if (req.name === AIRTABLE.name) {
        const installed = [...this.installed].map(([id, pkg]) => ({ id, version: pkg.version }));
        return { ok: true, value: { server: AIRTABLE, options: [{ ...AIRTABLE_OPTION, ...(installed.length ? { installed } : {}) }] } };
      }
      const server = REGISTRY_SERVERS.find((s) => s.name === req.name);
      if (!server) return { ok: false, code: 'not_found', message: `The registry has no server "${req.name}".` };
      return { ok: true, value: { server, options: REGISTRY_OPTIONS[req.name] ?? [], ...this.#cached() } };
    },
    'registry.installed': (req) => {
      const pkg = this.installed.get(req.id);
      if (!pkg)
        return { ok: false, code: 'invalid', field: 'id', message: `"${req.id}" does not run an npm package or bundle that Spillway installed.` };
      return { ok: true, value: pkg };
    },
    // As the hub's Update: the latest version runs, the one before is kept to go back to.
    'registry.update': (req) => {
      const pkg = this.installed.get(req.id);
      if (!pkg?.latest) return { ok: false, code: 'invalid', field: 'id', message: `"${req.id}" has no newer version to update to.` };
      this.installed.set(req.id, { ...pkg, version: pkg.latest, previous: pkg.version, updateAvailable: false });
      return { ok: true, value: { id: req.id, name: pkg.name, version: pkg.latest, previous: pkg.version, updated: pkg.latest !== pkg.version } };
    },
    // As registry-go-back.ts: back to the kept version, nothing further back, the newer one offered again.
    'registry.goBack': (req) => {
      const pkg = this.installed.get(req.id);
      if (!pkg?.previous) return { ok: false, code: 'invalid', field: 'id', message: `"${req.id}" has no earlier version kept to go back to.` };
      const { previous: _kept, ...rest } = pkg;
      this.installed.set(req.id, { ...rest, version: pkg.previous, updateAvailable: pkg.latest !== undefined && pkg.latest !== pkg.previous });
      return { ok: true, value: { id: req.id, name: pkg.name, version: pkg.previous, previous: pkg.version } };
    },
    'registry.form': (req) => {
      const option = this.#option(req.name, req);
      if (!option) return { ok: false, code: 'not_found', message: `${req.name} has no such option` };
      return { ok: true, value: { option, fields: REGISTRY_FIELDS[req.name] ?? [] } };
    },
    'registry.add': (req) => {
      const option = this.#option(req.name, req);
      const server = REGISTRY_SERVERS.find((s) => s.name === req.name);
      if (!option || !server) return { ok: false, code: 'not_found', message: `${req.name} has no such option` };
      if (option.runtime && !option.runtime.present) return { ok: false, code: 'unavailable', message: option.runtime.missing ?? 'missing' };
      for (const field of REGISTRY_FIELDS[req.name] ?? []) {
        const value = req.values[field.key] ?? field.default ?? '';
        if (value.trim() === '' && field.required)
          return { ok: false, code: 'invalid', message: `${field.label} is required`, field: `values.${field.key}` };
        if (value !== '' && field.input === 'boolean' && value !== 'true' && value !== 'false')
          return { ok: false, code: 'invalid', message: `${field.label}: must be true or false`, field: `values.${field.key}` };
      }
      const id = server.name.split('/').pop() ?? server.name;
      const label = server.title ?? server.name;
      // Parsed as the hub parses a config, so its defaults (enabled, prefix) are filled.
      const config = ServerConfigSchema.parse(
        option.kind === 'remote'
          ? { type: 'http', url: 'https://mcp.neon.tech/mcp', label }
          : { type: 'stdio', command: 'docker', args: ['run', '-i', '--rm', 'docker.io/hashicorp/terraform-mcp-server:1.2.0'], label },
      );
      this.backend.seedServer(id, config);
      this.backend.emit({ type: 'config.changed', level: 'info', what: `servers.${id}` });
      const secrets = (REGISTRY_FIELDS[req.name] ?? []).some((f) => f.secret && req.values[f.key]) ? 'secret-store' : 'none';
      return { ok: true, value: { id, summary: option.summary, secrets } };
    },
  };
}
