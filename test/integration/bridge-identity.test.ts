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
import { LineFramer } from '../../electron/core/wire/line-framer.js';
import { scriptedHandshake } from '../support/socket-handshake.js';

const OUR_ID = 'our-hub-id-0123456789abcdef';
const TOKEN = 'the-token-of-this-data-folder';
let dir: string;
const servers: Server[] = [];

/** A socket hub whose id is `id`: proves it on the handshake, then answers every request with its name. */
async function hubWithId(path: string, id: string, name: string): Promise<void> {
  const server = createServer((socket: Socket) =>
    scriptedHandshake(socket, {
      id,
      onMessage: (raw) => {
        const m = JSON.parse(raw.toString('utf8')) as { id?: number };
        if (m.id !== undefined) socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { hub: name } })}\n`);
      },
    }),
  );
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

function run(socketPath: string, startHub?: () => Promise<void>, timeoutMs?: number) {
  const input = new PassThrough();
  const output = new PassThrough();
  const log: string[] = [];
  const answer = new Promise<{ result?: { hub: string } }>((resolve) => {
    const framer = new LineFramer({ onLine: (raw) => resolve(JSON.parse(raw.toString('utf8')) as { result?: { hub: string } }) });
    output.on('data', (chunk: Buffer) => framer.push(chunk));
  });
  const bridge = new Bridge({
    input,
    output,
    log: (l) => log.push(l),
    socketPath,
    token: async () => TOKEN,
    hubId: async () => OUR_ID,
    startHub,
    timeoutMs,
  });
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

  it('never sends the token to a listener that cannot prove it is this folder’s hub (another user’s program on the path)', async () => {
    // What the audit ran as another user on the predicted socket path: it says "ok" to anything.
    const path = join(dir, 'thief.sock');
    const got: string[] = [];
    const thief = createServer((socket) => {
      socket.on('data', (chunk: Buffer) => {
        got.push(chunk.toString('utf8'));
        socket.end('{"ok":true}\n');
      });
      socket.on('error', () => undefined);
    });
    servers.push(thief);
    await new Promise<void>((resolve) => thief.listen(path, resolve));
    const { answer, log, done } = run(path, undefined, 1000);
    // Nothing of ours answers: the call fails once the bound is reached (no hub is started: none was given).
    expect((await answer) as { error?: { message: string } }).toMatchObject({ error: { message: expect.stringMatching(/not running/) } });
    expect(await done).toBe(1);
    expect(got.length).toBeGreaterThan(0);
    expect(got.join('')).not.toContain(TOKEN);
    expect(log.join('\n')).toMatch(/is not this data folder's Spillway .*not sending it the token/);
    expect(log.join('\n')).not.toMatch(/connected/);
  });
});
