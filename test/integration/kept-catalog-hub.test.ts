/**
 * The hub with the last run's catalog (issue 13, item 3), in-process: upstreams are SDK McpServers whose
 * start the test holds (a gate per run), clients connect over the SDK's in-memory pair, so notifications
 * and answers arrive in the order the hub sent them. Two runs share a data folder: the first lists and
 * keeps, the second serves what was kept while its upstream starts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { HubEvent } from '../../shared/events.js';
import { resolvePaths } from '../../electron/core/files/app-paths.js';
import { Hub } from '../../electron/core/hub.js';

function deferred() {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

interface Run {
  hub: Hub;
  /** A client connected as a stdio client would be; `changes` counts the tools/list_changed it got. */
  connect(): Promise<{ client: Client; changes: () => number }>;
  /** Resolves on the first event that matches. */
  event(match: (e: HubEvent) => boolean): Promise<HubEvent>;
  stop(): Promise<void>;
}

let dir: string;
const runs: Run[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-kept-hub-'));
});
afterEach(async () => {
  for (const run of runs.splice(0)) await run.stop();
  await rm(dir, { recursive: true, force: true });
});

/**
 * One run of a hub on `dir` with server `s` listing `tools` (each answers its own name). With a gate, `s`
 * starts only once it opens (or fails to start when it is rejected).
 */
async function run(options: {
  tools: string[];
  gate?: Promise<void>;
  command?: string;
  servers?: Record<string, unknown>;
  firstListWaitMs?: number;
}): Promise<Run> {
  const paths = resolvePaths({ dataDir: dir, os: { home: homedir(), platform: process.platform, env: {} } });
  // Started with the hub: a stdio server with kept lists would otherwise start on first use (issue 18).
  const servers = options.servers ?? { s: { type: 'stdio', command: options.command ?? 'in-memory-s', startMode: 'always' } };
  await writeFile(paths.configFile, JSON.stringify({ version: 1, servers }));
  const hub = await Hub.create({
    paths,
    version: '0.0.0-test',
    platform: process.platform,
    env: {},
    listen: false,
    upstream: { backoffBaseMs: 60_000 },
    ...(options.firstListWaitMs !== undefined ? { firstListWaitMs: options.firstListWaitMs } : {}),
    createTransport: async () => {
      await options.gate;
      const server = new McpServer({ name: 's', version: '1.0.0' });
      for (const name of options.tools) {
        server.registerTool(name, { description: `The ${name} tool.` }, async () => ({ content: [{ type: 'text', text: name }] }));
      }
      const [upstreamSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      return { transport: upstreamSide };
    },
  });
  const clients: Client[] = [];
  const event: Run['event'] = (match) =>
    new Promise((resolve) => {
      const off = hub.events.subscribe((e) => {
        if (!match(e)) return;
        off();
        resolve(e);
      });
    });
  const r: Run = {
    hub,
    event,
    async connect() {
      const [clientSide, hubSide] = InMemoryTransport.createLinkedPair();
      const client = new Client({ name: 'kept-test', version: '1.0.0' });
      let changes = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);
      await Promise.all([hub.connectSession(hubSide, 'stdio'), client.connect(clientSide)]);
      clients.push(client);
      return { client, changes: () => changes };
    },
    async stop() {
      runs.splice(runs.indexOf(r), 1);
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await hub.stop();
    },
  };
  runs.push(r);
  const ready = event((e) => e.type === 'upstream.status' && e.server === 's' && e.status === 'ready');
  await hub.start();
  if (!options.gate && !options.servers) await ready;
  return r;
}

const status = (r: Run, state: string) => r.event((e) => e.type === 'upstream.status' && e.server === 's' && e.status === state);
const says = (r: Run, text: string) => r.event((e) => e.type === 'log' && e.message.includes(text));
const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name).filter((n) => !n.startsWith('spillway__'));
const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

/** A first run that listed `tools` and kept them. */
async function firstRun(tools: string[]): Promise<void> {
  const first = await run({ tools });
  await first.stop();
}

describe('a restarted hub and the last run’s catalog', () => {
  it('serves the kept tools at once, marked as the last run’s, before their upstream is up', async () => {
    await firstRun(['a', 'b']);
    const gate = deferred();
    const second = await run({ tools: ['a', 'b'], gate: gate.promise });
    expect(second.hub.pool.get('s')?.status).toBe('connecting');
    expect(second.hub.catalog.toolEntries().map((e) => [e.name, e.kept])).toEqual([
      ['s__a', true],
      ['s__b', true],
    ]);
    gate.resolve();
    await status(second, 'ready');
    expect(second.hub.catalog.toolEntries().map((e) => [e.name, e.kept])).toEqual([
      ['s__a', undefined],
      ['s__b', undefined],
    ]);
  });

  it("holds a session's first tools/list until the upstream is up, and answers with what it lists now", async () => {
    await firstRun(['a', 'b']);
    const gate = deferred();
    const second = await run({ tools: ['a', 'b', 'c'], gate: gate.promise });
    const { client } = await second.connect();
    const waiting = says(second, 'tools/list of kept-test waits up to 5 s for s (ready last run)');
    const listed = names(client);
    await waiting;
    gate.resolve();
    expect(await listed).toEqual(['s__a', 's__b', 's__c']);
  });

  it('after its bound, a first tools/list answers with the kept tools', async () => {
    await firstRun(['a', 'b']);
    const second = await run({ tools: ['a', 'b'], gate: new Promise(() => {}), firstListWaitMs: 10 });
    const { client } = await second.connect();
    expect(await names(client)).toEqual(['s__a', 's__b']);
    expect(second.hub.pool.get('s')?.status).toBe('connecting');
  });

  it('sends list_changed only when the lists differ from the kept ones', async () => {
    await firstRun(['a', 'b']);
    const same = deferred();
    const second = await run({ tools: ['a', 'b'], gate: same.promise });
    const quiet = await second.connect();
    same.resolve();
    await status(second, 'ready');
    // Answers come after any notification sent before them (in-memory pair, in order).
    expect(await names(quiet.client)).toEqual(['s__a', 's__b']);
    expect(quiet.changes()).toBe(0);
    await second.stop();

    const other = deferred();
    const third = await run({ tools: ['a'], gate: other.promise });
    const told = await third.connect();
    other.resolve();
    await status(third, 'ready');
    expect(await names(told.client)).toEqual(['s__a']);
    expect(told.changes()).toBe(1);
  });

  it('a call of a kept tool waits for its upstream, and says why when it does not come up', async () => {
    await firstRun(['a']);
    const gate = deferred();
    const second = await run({ tools: ['a'], gate: gate.promise, firstListWaitMs: 0 });
    const { client } = await second.connect();
    const waiting = says(second, 'A call waits for "s" to start');
    const call = client.callTool({ name: 's__a', arguments: {} }) as Promise<CallToolResult>;
    await waiting;
    gate.reject(new Error('cannot start: missing binary'));
    const result = await call;
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/Server "s" is not available right now \(status: error: .*missing binary/);
  });

  it('a call of a kept tool is answered once its upstream is up', async () => {
    await firstRun(['a']);
    const gate = deferred();
    const second = await run({ tools: ['a'], gate: gate.promise, firstListWaitMs: 0 });
    const { client } = await second.connect();
    const waiting = says(second, 'A call waits for "s" to start');
    const call = client.callTool({ name: 's__a', arguments: {} }) as Promise<CallToolResult>;
    await waiting;
    gate.resolve();
    expect(text(await call)).toBe('a');
  });

  it('kept lists of a server whose config changed are neither served nor waited for', async () => {
    await firstRun(['a']);
    const second = await run({ tools: ['b'], gate: new Promise(() => {}), command: 'in-memory-s-v2' });
    expect(second.hub.catalog.toolEntries()).toEqual([]);
    const { client } = await second.connect();
    expect(await names(client)).toEqual([]);
  });

  it('a server removed from the config leaves the kept catalog', async () => {
    await firstRun(['a']);
    const second = await run({ tools: [], servers: {} });
    await second.stop();
    const file = JSON.parse(await readFile(join(dir, 'kept-catalog.json'), 'utf8')) as { upstreams: Record<string, unknown> };
    expect(file.upstreams).toEqual({});
  });
});
