/**
 * The bridge over its socket link, in process, against a scripted hub: lines pass byte for byte both
 * ways, and a hub message over the client pipe limit becomes an error for its id (the HTTP fallback's
 * side of this is in e2e/bridge.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { CLIENT_PIPE_MAX_BYTES } from '../../shared/limits.js';
import { Bridge } from '../../electron/cli/bridge/bridge.js';
import { LineFramer } from '../../electron/core/wire/line-framer.js';
import { scriptedHandshake } from '../support/socket-handshake.js';

const HUB_ID = 'scripted-hub-id-0123456789';

let dir: string;
let server: Server;
const hubSaw: string[] = [];

/** A hub that accepts the bridge's handshake and answers from a script, writing its lines as given. */
function scriptedHub(socket: Socket): void {
  scriptedHandshake(socket, {
    id: HUB_ID,
    onMessage: (raw) => {
      const text = raw.toString('utf8');
      hubSaw.push(text);
      const m = JSON.parse(text) as { id: number; method: string };
      if (m.method === 'big') {
        socket.write(`{"result":{"text":"${'x'.repeat(CLIENT_PIPE_MAX_BYTES)}"},"jsonrpc":"2.0","id":${m.id}}\n`);
      } else {
        socket.write(`{ "jsonrpc" : "2.0", "id": ${m.id},  "result": {"echo":"${m.method}"} }\n`);
      }
    },
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-bridge-link-'));
  server = createServer(scriptedHub);
  await new Promise<void>((resolve) => server.listen(join(dir, 'hub.sock'), resolve));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

function startBridge(socketPath = join(dir, 'hub.sock'), timeoutMs = 5000) {
  const input = new PassThrough();
  const output = new PassThrough();
  const log: string[] = [];
  const lines: string[] = [];
  const waiters: (() => void)[] = [];
  const framer = new LineFramer({
    onLine: (raw) => {
      lines.push(raw.toString('utf8'));
      for (const wake of waiters.splice(0)) wake();
    },
  });
  output.on('data', (chunk: Buffer) => framer.push(chunk));
  const bridge = new Bridge({
    input,
    output,
    log: (l) => log.push(l),
    socketPath,
    token: async () => 'token',
    hubId: async () => HUB_ID,
    timeoutMs,
  });
  const done = bridge.run();
  const nextLine = async (): Promise<string> => {
    while (lines.length === 0) await new Promise<void>((resolve) => waiters.push(resolve));
    return lines.shift()!;
  };
  return { input, log, nextLine, bridge, done };
}

describe('the bridge over its socket link', () => {
  it('forwards lines as the bytes they came as, both ways', async () => {
    const { input, nextLine, bridge, done } = startBridge();
    input.write('{"jsonrpc":"2.0","id":1,  "method":"ping"}\n');
    expect(await nextLine()).toBe('{ "jsonrpc" : "2.0", "id": 1,  "result": {"echo":"ping"} }\n');
    expect(hubSaw.at(-1)).toBe('{"jsonrpc":"2.0","id":1,  "method":"ping"}\n');
    bridge.close(0);
    expect(await done).toBe(0);
  });

  it('replaces a hub response over the client pipe limit by an error for its id, and goes on', async () => {
    const { input, log, nextLine, bridge, done } = startBridge();
    input.write('{"jsonrpc":"2.0","id":7,"method":"big"}\n');
    const error = JSON.parse(await nextLine()) as { id: number; error: { message: string } };
    expect(error.id).toBe(7);
    expect(error.error.message).toContain(`(${CLIENT_PIPE_MAX_BYTES / 1024 / 1024} MiB)`);
    expect(log.some((l) => l.includes('replaced by an error'))).toBe(true);
    input.write('{"jsonrpc":"2.0","id":8,"method":"ping"}\n');
    expect(JSON.parse(await nextLine())).toEqual({ jsonrpc: '2.0', id: 8, result: { echo: 'ping' } });
    bridge.close(0);
    expect(await done).toBe(0);
  });

  it('counts a hub that takes the connection but never answers (a stopped hub) as none, within the handshake limit', async () => {
    // What a SIGSTOPped hub looks like from here: the kernel accepts the connection, nothing is ever said.
    const path = join(dir, 'silent.sock');
    const silent = createServer((socket) => socket.on('error', () => undefined).resume());
    await new Promise<void>((resolve) => silent.listen(path, resolve));
    try {
      const { input, log, nextLine, done } = startBridge(path, 1000);
      input.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
      const answer = JSON.parse(await nextLine()) as { id: number; error: { message: string } };
      expect(answer.id).toBe(1);
      expect(answer.error.message).toMatch(/Spillway is not running \(nothing answers on .*silent\.sock\)/);
      expect(await done).toBe(1);
      expect(log.join('\n')).not.toMatch(/connected/);
    } finally {
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
