/**
 * The bridge uses only its own data folder's hub (issue 13, item 2), on the socket: a hub that answers the
 * handshake's nonce with the wrong proof is left alone (the bridge starts its own), one with the right
 * proof is used. Scripted socket hubs, in process; the HTTP side runs real hubs in e2e/bridge-start.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Bridge } from '../../electron/cli/bridge/bridge.js';
import { hubProof } from '../../electron/core/files/hub-identity.js';
import { LineFramer } from '../../electron/core/wire/line-framer.js';

const OUR_ID = 'our-hub-id-0123456789abcdef';
let dir: string;
const servers: Server[] = [];

/** A socket hub whose id is `id`: proves it on the handshake, then answers every request with its name. */
async function hubWithId(path: string, id: string, name: string): Promise<void> {
  const server = createServer((socket: Socket) => {
    let greeted = false;
    const framer = new LineFramer({
      onLine: (raw) => {
        const m = JSON.parse(raw.toString('utf8')) as { nonce?: string; id?: number };
        if (!greeted) {
          greeted = true;
          socket.write(`${JSON.stringify({ ok: true, hub: hubProof(id, m.nonce ?? '', 'socket') })}\n`);
          return;
        }
        if (m.id !== undefined) socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { hub: name } })}\n`);
      },
    });
    socket.on('data', (chunk: Buffer) => framer.push(chunk));
    socket.on('error', () => undefined);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-bridge-identity-'));
  await hubWithId(join(dir, 'foreign.sock'), 'another-folder-id-0123456789', 'foreign');
});

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  await rm(dir, { recursive: true, force: true });
});

function run(socketPath: string, startHub?: () => Promise<void>) {
  const input = new PassThrough();
  const output = new PassThrough();
  const log: string[] = [];
  const answer = new Promise<{ result?: { hub: string } }>((resolve) => {
    const framer = new LineFramer({ onLine: (raw) => resolve(JSON.parse(raw.toString('utf8')) as { result?: { hub: string } }) });
    output.on('data', (chunk: Buffer) => framer.push(chunk));
  });
  const bridge = new Bridge({ input, output, log: (l) => log.push(l), socketPath, token: async () => 'token', hubId: async () => OUR_ID, startHub });
  const done = bridge.run();
  input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })}\n`);
  return { answer, log, bridge, done };
}

describe('the bridge and hub identity on the socket', () => {
  it('leaves a hub that cannot prove this folder’s id alone, and uses its own once it is up', async () => {
    const path = join(dir, 'foreign.sock');
    // "Starting our own hub" here: our hub takes over the socket path of the foreign one.
    const { answer, log, bridge, done } = run(path, async () => {
      await new Promise((resolve) => servers[0].close(resolve));
      await hubWithId(path, OUR_ID, 'ours');
    });
    expect((await answer).result?.hub).toBe('ours');
    expect(log.join('\n')).toMatch(/is not this data folder's Spillway/);
    bridge.close(0);
    expect(await done).toBe(0);
  });
});
