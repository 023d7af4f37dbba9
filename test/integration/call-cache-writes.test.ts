/**
 * The call cache and calls that change things, through a real hub: a call of a tool that is not read-only
 * (no readOnlyHint, no cache time of its own) drops its server's cached results, before it is sent and
 * again once it is answered, and a read answered across such a call is not stored. Before, with "cache
 * read-only tools" on, read_text_file answered the text from before write_file, and read_graph still
 * listed an entity after delete_entities, for 300 s.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILESYSTEM, MEMORY, NODE, fixture, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

const textOf = (r: unknown) => (r as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : '')).join('');

let t: TestHub;
let client: Client;
let dir: string;
beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'spillway-cache-writes-')));
  t = await startTestHub({
    version: 1,
    servers: {
      fs: { type: 'stdio', command: NODE, args: [FILESYSTEM, dir] },
      mem: { type: 'stdio', command: NODE, args: [MEMORY], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } },
      store: { type: 'stdio', ...nodeServer(fixture('store-server.mjs')) },
    },
    settings: { port: 0, policy: { cacheReadOnlyTools: true } },
    policies: { tools: { store: { stamp: { cacheTtlSeconds: 300 } } } },
  });
  await Promise.all([t.waitForStatus('fs', 'ready'), t.waitForStatus('mem', 'ready'), t.waitForStatus('store', 'ready')]);
  client = await t.connect();
}, 60_000);
afterAll(async () => {
  await t?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const call = async (name: string, args: Record<string, unknown> = {}) => textOf(await client.callTool({ name, arguments: args }));

/** Resolves once the hub has sent a call of `tool` to its server. */
const sent = (tool: string) => t.waitFor((e) => e.type === 'call.started' && e.tool === tool, `${tool} sent`);

describe('real servers', () => {
  it('server-filesystem: read_text_file after write_file gives the new text', async () => {
    const path = join(dir, 'notes.txt');
    await call('fs__write_file', { path, content: 'version 1' });
    expect(await call('fs__read_text_file', { path })).toBe('version 1');
    expect(await call('fs__read_text_file', { path })).toBe('version 1'); // cached, as the setting says
    await call('fs__write_file', { path, content: 'version 2' });
    expect(await call('fs__read_text_file', { path })).toBe('version 2');
  });

  it('server-memory: read_graph after delete_entities no longer lists the entity', async () => {
    await call('mem__create_entities', { entities: [{ name: 'Alice', entityType: 'person', observations: [] }] });
    expect(await call('mem__read_graph')).toContain('Alice');
    await call('mem__delete_entities', { entityNames: ['Alice'] });
    expect(await call('mem__read_graph')).not.toContain('Alice');
  });
});

describe('calls that overlap', () => {
  it('a read sent before a write and answered after it is not stored', async () => {
    await call('store__put', { key: 'a', value: 'old' });
    const started = sent('get');
    const reading = call('store__get', { key: 'a', delayMs: 400 }); // reads "old" at once, answers later
    await started;
    await call('store__put', { key: 'a', value: 'new' });
    expect(await reading).toMatch(/^a=old /);
    expect(await call('store__get', { key: 'a', delayMs: 400 })).toMatch(/^a=new /);
  });

  it('a read answered while a write runs is dropped when the write is answered', async () => {
    await call('store__put', { key: 'b', value: 'old' });
    const started = sent('put');
    const writing = call('store__put', { key: 'b', value: 'new', delayMs: 400 }); // sets "new" when it answers
    await started;
    expect(await call('store__get', { key: 'b' })).toMatch(/^b=old /);
    expect(await writing).toBe('stored');
    expect(await call('store__get', { key: 'b' })).toMatch(/^b=new /);
  });

  it('reads, and tools given a cache time, leave the cached results of their server alone', async () => {
    await call('store__put', { key: 'c', value: 'kept' });
    const first = await call('store__get', { key: 'c' });
    await call('store__get', { key: 'other' });
    await call('store__stamp'); // no readOnlyHint, but cached by its policy: counted as a read
    expect(await call('store__get', { key: 'c' })).toBe(first);
    expect(await call('store__stamp')).toBe('stamp 1');
  });
});
