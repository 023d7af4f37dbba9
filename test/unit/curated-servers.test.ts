/**
 * The servers that ship with the app (issue 16): each entry follows the registry's published server.json
 * schema (read from ../shared/registry-fixture at test time), and the npm packages installed here carry
 * the very name the list gives them (their `mcpName`, which the registry checks when publishing).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CURATED_PUBLISHED, CURATED_SERVERS, curatedEntry, searchCurated } from '../../electron/core/registry/curated-servers.js';
import { ROOT } from '../support/hub-harness.js';

const fixtureDir = join(ROOT, '..', 'shared', 'registry-fixture');

describe('the curated servers', () => {
  it('follow the registry schema', async () => {
    const schema = JSON.parse(await readFile(join(fixtureDir, 'schema', 'server.schema.json'), 'utf8'));
    const { validate } = (await import(join(fixtureDir, 'schema-check.mjs'))) as { validate: (s: unknown, v: unknown) => string[] };
    for (const entry of CURATED_PUBLISHED as Array<{ server: { name: string } }>) {
      expect({ name: entry.server.name, errors: validate(schema, entry.server) }).toEqual({ name: entry.server.name, errors: [] });
    }
    expect(new Set(CURATED_SERVERS.map((r) => r.server.name)).size).toBe(CURATED_SERVERS.length);
  });

  it('name installed npm packages by their published mcpName', async () => {
    let checked = 0;
    for (const { server } of CURATED_SERVERS) {
      for (const pkg of server.packages ?? []) {
        const manifest = await readFile(join(ROOT, 'node_modules', pkg.identifier, 'package.json'), 'utf8').catch(() => undefined);
        if (!manifest) continue;
        expect(JSON.parse(manifest).mcpName).toBe(server.name);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(3);
  });

  it('are searched by name, title and description', () => {
    expect(searchCurated().length).toBe(CURATED_SERVERS.length);
    expect(searchCurated('FILES').map((r) => r.server.name)).toContain('io.github.modelcontextprotocol/server-filesystem');
    expect(searchCurated('browser').map((r) => r.server.name)).toEqual(['io.github.microsoft/playwright-mcp']);
    expect(curatedEntry('io.github.upstash/context7')?.server.remotes?.[0]?.url).toBe('https://mcp.context7.com/mcp');
    expect(curatedEntry('nope')).toBeUndefined();
  });
});
