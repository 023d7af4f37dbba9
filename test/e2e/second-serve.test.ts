/**
 * `spillway serve` run again on a data folder a running `spillway serve` holds (on its port, or on another)
 * is refused before it opens a store, as two real processes: the running hub's newest spilled result (not
 * yet in the index file, which follows a second later) and its spill/.raw stay as they were, and it still
 * reads the result back.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BIN, LISTENING, plainEnv, toolListed } from '../support/bridge-client.js';
import { fixture, NODE } from '../support/hub-harness.js';
import { spawnUntil, type Started } from '../support/processes.js';

let dir: string;
let first: Started | undefined;
let client: Client | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-second-serve-'));
  await writeFile(
    join(dir, 'config.json'),
    JSON.stringify({ version: 1, servers: { big: { type: 'stdio', command: NODE, args: [fixture('big-result-server.mjs')] } } }),
  );
});
afterAll(async () => {
  await client?.close();
  await first?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** `spillway serve` on the folder, run to its end: its exit code and what it printed to stderr. */
async function serveAgain(port: string): Promise<{ code: number | null; err: string }> {
  const child = spawn(NODE, [BIN, 'serve', '--data-dir', dir, '--port', port], { env: plainEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, err };
}

/** Every file and folder under spill/ but the index, with what changes when it is rewritten or made again. */
async function spillTree(): Promise<Record<string, string>> {
  const seen: Record<string, string> = {};
  for (const name of await readdir(join(dir, 'spill'), { recursive: true })) {
    if (name.startsWith('index.json')) continue;
    const s = await stat(join(dir, 'spill', name));
    seen[name] = `${s.ino} ${s.size} ${s.mtimeMs}`;
  }
  return seen;
}

it('is refused before it opens a store, on the same port or another; the running hub keeps its spilled result', async () => {
  first = await spawnUntil(NODE, [BIN, 'serve', '--data-dir', dir, '--port', '0'], LISTENING, { env: plainEnv() });
  const url = first.match[1];
  const token = (await readFile(join(dir, 'token'), 'utf8')).trim();
  client = new Client({ name: 'test-client', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  await toolListed(client, 'big__big');
  const result = await client.callTool({ name: 'big__big', arguments: { chars: 200_000 } });
  const handle = (result._meta as Record<string, string>)['spillway/handle'];
  // The answer goes out while its files are still being written; a read waits for them, so the tree is whole.
  const readBack = async () => {
    const back = await client!.callTool({ name: 'spillway__read_result', arguments: { handle, op: 'head' } });
    expect(back.isError).toBeFalsy();
    expect(JSON.stringify(back.content)).toContain('line of log output');
  };
  await readBack();
  const before = await spillTree();
  expect(Object.keys(before)).toEqual(expect.arrayContaining([handle, '.raw']));

  for (const port of [new URL(url).port, '0']) {
    const second = await serveAgain(port);
    expect(second.code).toBe(1);
    expect(second.err).toMatch(/^spillway: Another Spillway hub is already running for this data folder/);
  }
  expect(await spillTree()).toEqual(before);
  await readBack();
  // The running hub's record and lock are its own still.
  expect(JSON.parse(await readFile(join(dir, 'hub.json'), 'utf8'))).toMatchObject({ state: 'running', pid: first.child.pid });
  expect((await readFile(join(dir, 'hub.lock'), 'utf8')).trim()).toBe(String(first.child.pid));
});
