/**
 * Why an entry is deprecated or deleted (audit s19): the registry's statusMessage reaches the detail page
 * and the version picker beside the status, read from the shared registry fixture (whose entries for
 * textarttools-mcp and polymarket-mcp carry one); an active entry has none.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RegistryServerSchema } from '../../shared/api-registry.js';
import { RegistryCatalog, serverSummary } from '../../electron/core/registry/registry-catalog.js';
import type { Started } from '../support/processes.js';
import { startRegistryFixture } from '../support/registry-hub.js';

let registry: Started & { url: string };
let dir: string;
let catalog: RegistryCatalog;

beforeAll(async () => {
  registry = await startRegistryFixture();
  dir = await mkdtemp(join(tmpdir(), 'spillway-status-message-'));
  catalog = new RegistryCatalog({ baseUrl: () => registry.url, cacheDir: join(dir, 'cache') });
}, 60_000);
afterAll(async () => {
  await registry?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('a deprecated entry carries the registry’s reason to its detail page and its versions', async () => {
  const { response } = await catalog.get('com.textarttools/textarttools-mcp');
  const summary = RegistryServerSchema.parse(serverSummary(response));
  expect(summary).toMatchObject({ status: 'deprecated', statusMessage: expect.stringContaining('this entry is marked deprecated') });
  const { versions } = await catalog.versions('com.textarttools/textarttools-mcp');
  expect(versions).toContainEqual(expect.objectContaining({ status: 'deprecated', statusMessage: expect.stringContaining('marked deprecated') }));
});

it('an active entry has no status message', async () => {
  const { response } = await catalog.get('io.github.domdomegg/airtable-mcp-server');
  expect(serverSummary(response).statusMessage).toBeUndefined();
});
