/**
 * A short list of well-known servers that ships with the app (issue 16), so Browse works on a first run
 * without the network: what the catalog shows when the registry cannot be reached and nothing is kept
 * from an earlier visit. Each is a server.json entry under its published name (the `mcpName` of its npm
 * package), following the registry's 2025-12-11 schema (test/unit/curated-servers.test.ts checks them
 * against it). Versions are the ones current when the list was made; adding pins that version until the
 * user updates.
 */
import { findByWords, searchWords } from './catalog-search.js';
import { ServerResponseSchema, type ServerResponse } from './server-json.js';

/** When the list was made (shown as the date of the offline answer). */
export const CURATED_AT = '2026-11-24T00:00:00.000Z';
const SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';
const REFERENCE_SERVERS = { url: 'https://github.com/modelcontextprotocol/servers', source: 'github' };
const stdio = { type: 'stdio' } as const;

/** The entries as published (with `$schema`, which the catalog's own schema does not keep). */
const PUBLISHED = [
  {
    server: {
      $schema: SCHEMA,
      name: 'io.github.modelcontextprotocol/server-filesystem',
      title: 'Files on this computer',
      description: 'Read, write, search and move files inside the folders you allow.',
      repository: { ...REFERENCE_SERVERS, subfolder: 'src/filesystem' },
      version: '2026.8.31',
      packages: [
        {
          registryType: 'npm',
          identifier: '@modelcontextprotocol/server-filesystem',
          version: '2026.8.31',
          transport: stdio,
          packageArguments: [
            {
              type: 'positional',
              valueHint: 'allowed_folder',
              description: 'A folder the server may read and change (the files outside it stay out of reach).',
              format: 'filepath',
              isRequired: true,
            },
          ],
        },
      ],
    },
  },
  {
    server: {
      $schema: SCHEMA,
      name: 'io.github.modelcontextprotocol/server-memory',
      title: 'Memory',
      description: 'A knowledge graph the assistant keeps across conversations: people, things and how they relate.',
      repository: { ...REFERENCE_SERVERS, subfolder: 'src/memory' },
      version: '2026.8.31',
      packages: [
        {
          registryType: 'npm',
          identifier: '@modelcontextprotocol/server-memory',
          version: '2026.8.31',
          transport: stdio,
          environmentVariables: [
            {
              name: 'MEMORY_FILE_PATH',
              description: 'Where the memory is kept (a .jsonl file); by default beside the server.',
              format: 'filepath',
              isRequired: false,
            },
          ],
        },
      ],
    },
  },
  {
    server: {
      $schema: SCHEMA,
      name: 'io.github.modelcontextprotocol/server-sequential-thinking',
      title: 'Sequential thinking',
      description: 'Lets the assistant think a problem through step by step, revising as it goes.',
      repository: { ...REFERENCE_SERVERS, subfolder: 'src/sequentialthinking' },
      version: '2026.8.31',
      packages: [{ registryType: 'npm', identifier: '@modelcontextprotocol/server-sequential-thinking', version: '2026.8.31', transport: stdio }],
    },
  },
  {
    server: {
      $schema: SCHEMA,
      name: 'io.github.microsoft/playwright-mcp',
      title: 'Playwright browser',
      description: 'Lets the assistant open web pages in a browser, click, type and read what is on screen.',
      repository: { url: 'https://github.com/microsoft/playwright-mcp', source: 'github' },
      version: '0.0.83',
      packages: [{ registryType: 'npm', identifier: '@playwright/mcp', version: '0.0.83', transport: stdio }],
    },
  },
  {
    server: {
      $schema: SCHEMA,
      name: 'io.github.upstash/context7',
      title: 'Context7 library docs',
      description: 'Up-to-date documentation and code examples for programming libraries.',
      repository: { url: 'https://github.com/upstash/context7', source: 'github' },
      version: '4.1.1',
      packages: [
        {
          registryType: 'npm',
          identifier: '@upstash/context7-mcp',
          version: '4.1.1',
          transport: stdio,
          environmentVariables: [
            { name: 'CONTEXT7_API_KEY', description: 'An API key for higher rate limits (optional).', isRequired: false, isSecret: true },
          ],
        },
      ],
      remotes: [{ type: 'streamable-http', url: 'https://mcp.context7.com/mcp' }],
    },
  },
  {
    server: {
      $schema: SCHEMA,
      name: 'io.github.modelcontextprotocol/server-everything',
      title: 'Everything (test server)',
      description: 'A test server that shows every MCP feature: handy to check that a client works.',
      repository: { ...REFERENCE_SERVERS, subfolder: 'src/everything' },
      version: '2026.8.31',
      packages: [
        {
          registryType: 'npm',
          identifier: '@modelcontextprotocol/server-everything',
          version: '2026.8.31',
          transport: stdio,
          packageArguments: [{ type: 'positional', valueHint: 'transport', value: 'stdio' }],
        },
      ],
    },
  },
];

/** The servers that ship with the app, as the registry would answer for each. */
export const CURATED_SERVERS: readonly ServerResponse[] = PUBLISHED.map((entry) => ServerResponseSchema.parse(entry));

/** The entries exactly as written, for checking them against the registry's published schema. */
export const CURATED_PUBLISHED: readonly unknown[] = PUBLISHED;

/** The curated entries with every word of `query` in their name, title or description (all of them without one). */
export function searchCurated(query?: string): ServerResponse[] {
  const words = searchWords(query);
  return words.length ? findByWords(CURATED_SERVERS, words) : [...CURATED_SERVERS];
}

/** The curated entry of that name (any version asked for: the list holds one). */
export function curatedEntry(name: string): ServerResponse | undefined {
  return CURATED_SERVERS.find((r) => r.server.name === name);
}
