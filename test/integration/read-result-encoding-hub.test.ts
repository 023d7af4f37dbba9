/**
 * read_result shows a spilled result in the encoding of the tool that made it (issue 18), also for a
 * result kept from an earlier hub run, before that tool is called again: two runs share a data folder,
 * the first spills a tabular result of a tool whose policy says `encoding: 'json'` (the global setting
 * is 'auto'), the second reads it back.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { HubEvent } from '../../shared/events.js';
import { resolvePaths } from '../../electron/core/files/app-paths.js';
import { Hub } from '../../electron/core/hub.js';
import { NODE, fixture } from '../support/hub-harness.js';

const CONFIG = {
  version: 1,
  servers: {
    fx: { type: 'stdio', command: NODE, args: [fixture('fixture-server.mjs')] },
    plain: { type: 'stdio', command: NODE, args: [fixture('fixture-server.mjs')] },
  },
  settings: { spill: { thresholdTokens: 4_000, previewTokens: 600 } },
  policies: { servers: {}, tools: { plain: { big_structured: { encoding: 'json' } } } },
};
const rows = (count: number) => Array.from({ length: count }, (_, i) => ({ id: i, label: `row number ${i} with some words` }));

let dir: string;
const hubs: Hub[] = [];
const clients: Client[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-read-encoding-'));
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
  for (const hub of hubs.splice(0)) await hub.stop();
  await rm(dir, { recursive: true, force: true });
});

async function startHub(): Promise<Hub> {
  const paths = resolvePaths({ dataDir: dir, os: { home: homedir(), platform: process.platform, env: {} } });
  await writeFile(paths.configFile, JSON.stringify(CONFIG));
  const hub = await Hub.create({ paths, version: '0.0.0-test', platform: process.platform, env: process.env, listen: false });
  hubs.push(hub);
  await hub.start();
  return hub;
}

const ready = (hub: Hub, server: string) =>
  hub.pool.get(server)?.status === 'ready'
    ? Promise.resolve()
    : new Promise<void>((resolve) => {
        const off = hub.events.subscribe((e: HubEvent) => {
          if (e.type !== 'upstream.status' || e.server !== server || e.status !== 'ready') return;
          off();
          resolve();
        });
      });

async function connect(hub: Hub): Promise<Client> {
  const [clientSide, hubSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'read-encoding-test', version: '1.0.0' });
  await Promise.all([hub.connectSession(hubSide, 'stdio'), client.connect(clientSide)]);
  clients.push(client);
  return client;
}

const text = (r: unknown) => (r as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : '')).join('');
const read = (client: Client, args: Record<string, unknown>) => client.callTool({ name: 'spillway__read_result', arguments: args }).then(text);

describe('read_result of a result spilled in an earlier run', () => {
  it('uses the encoding of the tool that made it, not the global setting', async () => {
    const first = await startHub();
    await Promise.all([ready(first, 'fx'), ready(first, 'plain')]);
    let client = await connect(first);
    // Different sizes: the same content would be one spilled file.
    const handleOf = async (name: string, count: number) =>
      ((await client.callTool({ name, arguments: { count } }))._meta as Record<string, string>)['spillway/handle']!;
    const plain = await handleOf('plain__big_structured', 3_000);
    const fx = await handleOf('fx__big_structured', 3_001);
    hubs.splice(hubs.indexOf(first), 1);
    await first.stop();

    // The next run: neither tool is called, their servers are not even started.
    const hub = await startHub();
    client = await connect(hub);
    const query = await read(client, { handle: plain, op: 'query', query: '.rows | limit(3)' });
    expect(query).not.toContain('TOON');
    expect(JSON.parse(query.slice(query.indexOf('\n') + 1))).toEqual(rows(3));
    const head = await read(client, { handle: plain, op: 'head', lines: 3 });
    expect(head).not.toContain('TOON');
    expect(head).toContain('{"rows":[{"id":0,');
    // The other tool has no encoding of its own: the global 'auto' shows its table as TOON.
    expect(await read(client, { handle: fx, op: 'head', lines: 3 })).toContain('rows[3001]{id,label}:');
    expect(hub.pool.get('plain')?.status).toBe('idle');
  });
});
