/**
 * A Bridge in this process on in-memory stdin/stdout, and a scripted socket hub for it: each connection
 * proves HUB_ID in the handshake (socket-handshake.ts), then hands the bridge's messages to the test.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { Bridge } from '../../electron/cli/bridge/bridge.js';
import type { BridgeOptions } from '../../electron/cli/bridge/bridge-options.js';
import { LineFramer } from '../../electron/core/wire/line-framer.js';
import { scriptedHandshake } from './socket-handshake.js';

export const HUB_ID = 'scripted-hub-id-0123456789';

/** A JSON-RPC message as the test sees it. */
export interface Msg {
  jsonrpc?: string;
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { message: string };
}

/** One bridge connection to the scripted hub. */
export interface HubConnection {
  socket: Socket;
  /** Its place in the order of connections (0 for the first). */
  index: number;
  write(m: Msg): void;
}

export interface ScriptedHub {
  connections: HubConnection[];
  /** Resolves with connection `index` (0 for the first) once a bridge has made it. */
  connection(index: number): Promise<HubConnection>;
  close(): Promise<void>;
}

/** Listens on `path`; `onMessage` gets each message a bridge sends after the handshake. */
export async function scriptedSocketHub(path: string, onMessage: (m: Msg, c: HubConnection) => void): Promise<ScriptedHub> {
  const connections: HubConnection[] = [];
  const server: Server = createServer((socket) => {
    const c: HubConnection = { socket, index: connections.length, write: (m) => socket.write(`${JSON.stringify(m)}\n`) };
    connections.push(c);
    scriptedHandshake(socket, { id: HUB_ID, onMessage: (raw) => onMessage(JSON.parse(raw.toString('utf8')) as Msg, c) });
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  const connection = (index: number) =>
    new Promise<HubConnection>((resolve) => {
      const check = () => {
        if (index >= connections.length) return;
        server.off('connection', check);
        resolve(connections[index]);
      };
      // Listened to after the handler above: the connection is in the list when this hears of it.
      server.on('connection', check);
      check();
    });
  return {
    connections,
    connection,
    close: async () => {
      for (const c of connections) c.socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export interface InProcessBridge {
  input: PassThrough;
  bridge: Bridge;
  /** Resolves with the exit code. */
  done: Promise<number>;
  log: string[];
  /** The first line the bridge logged that matches, waiting for each line it logs until one does. */
  logged(pattern: RegExp): Promise<string>;
  /** Every message the client got, in order. */
  received: Msg[];
  send(m: Msg): void;
  /** The first message the client got that matches (waiting for it up to `ms`). */
  next(match: (m: Msg) => boolean, ms?: number): Promise<Msg>;
}

/** A bridge on `socketPath` with the scripted hub's id and any token; no hub is started unless `startHub` is given. */
export function inProcessBridge(options: Partial<BridgeOptions> & { socketPath: string }): InProcessBridge {
  const input = new PassThrough();
  const output = new PassThrough();
  const log: string[] = [];
  const logWaiters: (() => void)[] = [];
  const received: Msg[] = [];
  const waiters: (() => void)[] = [];
  const framer = new LineFramer({
    onLine: (raw) => {
      received.push(JSON.parse(raw.toString('utf8')) as Msg);
      for (const wake of [...waiters]) wake();
    },
  });
  output.on('data', (chunk: Buffer) => framer.push(chunk));
  const bridge = new Bridge({
    input,
    output,
    log: (l) => {
      log.push(l);
      for (const wake of [...logWaiters]) wake();
    },
    token: async () => 'token',
    hubId: async () => HUB_ID,
    timeoutMs: 5000,
    ...options,
  });
  const done = bridge.run();
  const next = (match: (m: Msg) => boolean, ms = 5000) =>
    new Promise<Msg>((resolve, reject) => {
      const check = () => {
        const found = received.find(match);
        if (!found) return;
        waiters.splice(waiters.indexOf(check), 1);
        clearTimeout(timer);
        resolve(found);
      };
      const timer = setTimeout(() => {
        waiters.splice(waiters.indexOf(check), 1);
        reject(new Error(`no such message within ${ms} ms; the client got ${JSON.stringify(received).slice(0, 500)}; log: ${log.join(' | ')}`));
      }, ms);
      waiters.push(check);
      check();
    });
  const logged = (pattern: RegExp) =>
    new Promise<string>((resolve) => {
      const check = () => {
        const found = log.find((l) => pattern.test(l));
        if (found === undefined) return;
        logWaiters.splice(logWaiters.indexOf(check), 1);
        resolve(found);
      };
      logWaiters.push(check);
      check();
    });
  return { input, bridge, done, log, logged, received, send: (m) => input.write(`${JSON.stringify(m)}\n`), next };
}

/** The answer to request `id`. */
export const answerTo = (id: string | number) => (m: Msg) => m.id === id && m.method === undefined;
