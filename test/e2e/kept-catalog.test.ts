/**
 * The first tools/list is complete (issue 13, item 3), with a real `spillway serve` and real stdio
 * upstreams: server-everything from npm, and the gated fixture whose start the test holds. The first run
 * lists every tool; after a restart a new session's very first tools/list has all of them, even with
 * one upstream not up yet (its tools come from the last run's catalog, kept in the data folder), and a
 * call of that upstream's tool waits for it instead of failing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BIN, LISTENING, plainEnv, toolListed } from '../support/bridge-client.js';
import { EVERYTHING, NODE, fixture } from '../support/hub-harness.js';
import { spawnUntil, type Started } from '../support/processes.js';

let root: string;
let dataDir: string;
let gate: string;
let hub: Started | undefined;
const clients: Client[] = [];

const serve = async () => (hub = await spawnUntil(NODE, [BIN, 'serve', '--data-dir', dataDir, '--port', '0'], LISTENING, { env: plainEnv() }));

async function connect(): Promise<Client> {
  const token = (await readFile(join(dataDir, 'token'), 'utf8')).trim();
  const client = new Client({ name: 'one-shot', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(hub!.match[1]), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}

/** The hub's log events as they happen (the control API's SSE stream); resolves when one says `text`. */
async function logSays(text: string): Promise<{ seen: Promise<void>; close: () => Promise<void> }> {
  const token = (await readFile(join(dataDir, 'token'), 'utf8')).trim();
  const res = await fetch(`${new URL(hub!.match[1]).origin}/api/events?types=log`, { headers: { authorization: `Bearer ${token}` } });
  const reader = res.body!.getReader();
  const seen = (async () => {
    let received = '';
    const decoder = new TextDecoder();
    while (!received.includes(text)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the event stream ended before saying ${text}`);
      received += decoder.decode(value, { stream: true });
    }
  })();
  return { seen, close: () => reader.cancel().catch(() => undefined) };
}

const upstreamTools = (names: string[]) => names.filter((n) => !n.startsWith('spillway__')).sort();

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-kept-catalog-'));
  dataDir = join(root, 'data');
  gate = join(root, 'gate-open');
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const servers = {
    // Started with the hub: with their lists kept they would otherwise start on first use (issue 18).
    everything: { type: 'stdio', command: NODE, args: [EVERYTHING, 'stdio'], startMode: 'always' },
    slow: { type: 'stdio', command: NODE, args: [fixture('gated-server.mjs'), '--gate', gate], startMode: 'always' },
  };
  await writeFile(join(dataDir, 'config.json'), JSON.stringify({ version: 1, servers, settings: { port: 0 } }));
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await hub?.stop();
  await rm(root, { recursive: true, force: true });
});

describe('the first tools/list after a restart', () => {
  let listed: string[] = [];

  it('first run: every upstream comes up and its tools are listed (and kept in the data folder)', async () => {
    await writeFile(gate, '');
    await serve();
    const client = await connect();
    await toolListed(client, 'slow__ping');
    await toolListed(client, 'everything__echo');
    listed = upstreamTools((await client.listTools()).tools.map((t) => t.name));
    expect(listed.length).toBeGreaterThan(5);
    await client.close();
    await hub!.stop();
    hub = undefined;

    // Kept as listed, not as the stopping upstreams emptied their lists.
    const kept = JSON.parse(await readFile(join(dataDir, 'kept-catalog.json'), 'utf8')) as {
      upstreams: Record<string, { tools: { name: string }[] }>;
    };
    const keptNames = Object.entries(kept.upstreams).flatMap(([id, u]) => u.tools.map((t) => `${id}__${t.name}`));
    expect(keptNames.sort()).toEqual(listed);
  });

  it("second run, one upstream held back: a new session's very first tools/list has every tool", async () => {
    await rm(gate);
    await serve();
    const log = await logSays('tools/list of one-shot waits up to 5 s for');
    try {
      const client = await connect();
      const first = upstreamTools((await client.listTools()).tools.map((t) => t.name));
      expect(first).toEqual(listed);
      // It waited (within its bound) for the upstreams that were up last time before answering.
      await log.seen;
    } finally {
      await log.close();
    }
  });

  it("a call of the held-back upstream's tool waits for it to start, then is answered", async () => {
    const client = clients[clients.length - 1];
    const log = await logSays('A call waits for \\"slow\\" to start');
    try {
      const call = client.callTool({ name: 'slow__ping', arguments: {} });
      await log.seen;
      await writeFile(gate, '');
      const result = await call;
      expect(result.isError).toBeFalsy();
      expect(JSON.stringify(result.content)).toContain('pong');
    } finally {
      await log.close();
    }
  });
});
