/**
 * The bridge on its HTTP fallback (no socket answers) across hub restarts, as over the socket
 * (bridge.test.ts, bridge-replay.test.ts): the session goes on after the hub comes back on its port, none
 * of the bridge's own messages reach the client, and a call under way when the hub dies fails once and is
 * never run a second time (the README: "If the hub restarts, only a call in flight fails").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { once } from 'node:events';
import { watch } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, LISTENING, openBridge, plainEnv, toolListed, type BridgeClient } from '../support/bridge-client.js';
import { NODE, fixture, freePort } from '../support/hub-harness.js';
import { stopHubsOf } from '../support/hub-processes.js';
import { spawnUntil, type Started } from '../support/processes.js';

let root: string;
let dataDir: string;
let calls: string;
let port: number;
let hub: Started | undefined;
let bridge: BridgeClient;
/** What the client's SDK reported as wrong (e.g. a response to an id it never sent). */
const clientErrors: string[] = [];

const serve = async () =>
  (hub = await spawnUntil(NODE, [BIN, 'serve', '--data-dir', dataDir, '--port', String(port)], LISTENING, { env: plainEnv() }));

/** Resolves once the hold tool has run `n` times (the fixture appends a line per run). */
async function ran(n: number): Promise<void> {
  const count = async () => (await readFile(calls, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
  await new Promise<void>((resolve) => {
    const check = () =>
      void count().then((c) => {
        if (c < n) return;
        watcher.close();
        resolve();
      });
    const watcher = watch(root, check);
    check();
  });
}

/**
 * Resolves once the hub reports `id` ready (its live events, then its list): a bridge connected before
 * may miss the list_changed, sent while its HTTP link's event stream is still opening.
 */
async function upstreamReady(id: string): Promise<void> {
  const token = (await readFile(join(dataDir, 'token'), 'utf8')).trim();
  const origin = `http://127.0.0.1:${port}`;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const events = await fetch(`${origin}/api/events?types=upstream.status&server=${id}`, { headers });
  const reader = events.body!.getReader();
  try {
    const list = (await (await fetch(`${origin}/api/upstreams.list`, { method: 'POST', headers, body: '{}' })).json()) as {
      value?: { id: string; status: string }[];
    };
    if (list.value?.some((u) => u.id === id && u.status === 'ready')) return;
    let text = '';
    while (!/"status":"ready"/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
  } finally {
    await reader.cancel();
  }
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-bridge-http-'));
  dataDir = join(root, 'data');
  calls = join(root, 'hold-calls.txt');
  port = await freePort();
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await writeFile(
    join(dataDir, 'config.json'),
    JSON.stringify({
      version: 1,
      servers: { gated: { type: 'stdio', command: NODE, args: [fixture('gated-server.mjs'), '--calls', calls] } },
      settings: { port },
    }),
  );
  await serve();
  await upstreamReady('gated');
  // No socket answers at this path: the bridge takes the HTTP endpoint, and comes back to it on the same port.
  bridge = await openBridge(['--data-dir', dataDir, '--no-start', '--socket', join(root, 'no-socket-here'), '--url', `http://127.0.0.1:${port}/mcp`]);
  bridge.client.onerror = (err) => clientErrors.push(err.message);
  await toolListed(bridge.client, 'gated__hold');
});

afterAll(async () => {
  await bridge?.client.close();
  await hub?.stop();
  await stopHubsOf(dataDir);
  await rm(root, { recursive: true, force: true });
});

describe('spillway bridge over HTTP, across hub restarts', () => {
  it('carries the same session on after the hub restarts on its port, and keeps its own messages from the client', async () => {
    const { client, said, stderr } = bridge;
    await hub!.stop();
    hub = undefined;
    await said(/lost the connection/);
    await serve();

    await toolListed(client, 'gated__ping');
    const after = await client.callTool({ name: 'gated__ping', arguments: {} });
    expect(JSON.stringify(after.content)).toContain('pong');
    // One connection per hub: the session was introduced again once, not in a loop.
    expect(stderr().match(/connected to Spillway \(http\)/g)).toHaveLength(2);
    expect(stderr()).not.toMatch(/HTTP send failed/);
    expect(clientErrors).toEqual([]);
  });

  it('answers a message the hub refuses with the refusal, and stays on the same session', async () => {
    const { transport, stderr } = bridge;
    const connections = stderr().match(/connected to Spillway \(http\)/g)?.length;
    const client = transport.onmessage!;
    const answer = new Promise<unknown>((resolve) => {
      transport.onmessage = (m) => ('id' in m && m.id === 'no-jsonrpc' ? resolve(m) : client(m));
    });
    // Not JSON-RPC (no "jsonrpc"): the hub answers 400; sending it again would only be refused again.
    await transport.send({ id: 'no-jsonrpc', method: 'tools/list' } as never);
    expect(JSON.stringify(await answer)).toMatch(/Spillway refused the request: .*Invalid JSON-RPC message/);
    transport.onmessage = client;
    expect(JSON.stringify((await bridge.client.callTool({ name: 'gated__ping', arguments: {} })).content)).toContain('pong');
    expect(stderr().match(/connected to Spillway \(http\)/g)?.length).toBe(connections);
  });

  it('fails a call under way when the hub dies, once, and never runs it on the next hub', async () => {
    const { client } = bridge;
    await toolListed(client, 'gated__hold');
    const call = client.callTool({ name: 'gated__hold', arguments: {} }).then(
      () => 'answered',
      (err: Error) => err.message,
    );
    await ran(1);
    const dead = once(hub!.child, 'exit');
    hub!.child.kill('SIGKILL');
    await dead;
    hub = undefined;
    await serve();

    const outcome = await Promise.race([call, ran(2).then(() => 'ran a second time')]);
    expect(outcome).toMatch(/Spillway restarted; please retry/);
    // The session goes on, and the held call was not sent again behind the client's back.
    await toolListed(client, 'gated__ping');
    expect(JSON.stringify((await client.callTool({ name: 'gated__ping', arguments: {} })).content)).toContain('pong');
    expect((await readFile(calls, 'utf8')).split('\n').filter(Boolean)).toHaveLength(1);
    expect(clientErrors).toEqual([]);
  });
});
