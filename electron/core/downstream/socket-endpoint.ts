/**
 * The bridge's way in: a Unix domain socket in an owner-only folder or, on Windows, a named pipe.
 * Each connection opens with a handshake of two exchanges, so a bridge never gives its token to whatever
 * happens to listen on the path (another user's program on a shared temp folder, a squatted pipe name):
 * 1. bridge: `{"nonce":"…","client":"…"}`; hub: `{"hub":"<proof>"}`, its answer to the nonce
 *    (files/hub-identity.ts: only this data folder's hub can give it);
 * 2. bridge, once the proof checks out: `{"token":"…"}`; hub: `{"ok":true}` or `{"ok":false,"error":"…"}`.
 * A refusal is one `{"ok":false,…}` line, then the connection closes. After the handshake it carries
 * newline-delimited JSON-RPC both ways, framed like stdio, served as one MCP session of kind 'bridge' (issue 6).
 */
import { createHash } from 'node:crypto';
import { chmod, lstat, mkdir, stat, unlink } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { posix, win32 } from 'node:path';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CLIENT_MESSAGE_MAX_BYTES } from '../../../shared/limits.js';
import { LineTransport } from '../wire/line-transport.js';
import { tokensEqual } from '../files/access-token.js';
import { DownstreamSession, type SessionTransportKind } from './session.js';

export const SOCKET_FILE = 'spillway.sock';
/** The handshake line must arrive within this long, and be at most this big. */
const HANDSHAKE_TIMEOUT_MS = 10_000;
const HANDSHAKE_MAX_BYTES = 64 * 1024;
/** sun_path holds 108 bytes on Linux and 104 on macOS, the terminating NUL included. */
const MAX_UNIX_SOCKET_PATH = 103;

/** Where a data folder too deep for a Unix socket path gets its socket: the same for every process of the user. */
const POSIX_TMP = '/tmp';

/**
 * Where the hub listens for bridges: `<dataDir>/spillway.sock`, or on Windows
 * `\\.\pipe\spillway-<hash of dataDir>`. A data folder too deep for a Unix socket path falls back to
 * `/tmp/spillway-<uid>/<hash>.sock`: a folder of this user's own, never the shared temp folder itself
 * (another user could listen there first). Never under TMPDIR: hub and bridge must compute the same path,
 * and their environments differ (a desktop app has TMPDIR set, a client starts its bridge without it).
 */
export function socketPathFor(options: { dataDir: string; platform: NodeJS.Platform; uid?: number }): string {
  if (options.platform === 'win32') return `\\\\.\\pipe\\spillway-${dataDirHash(win32.resolve(options.dataDir).toLowerCase())}`;
  const inData = posix.join(options.dataDir, SOCKET_FILE);
  if (Buffer.byteLength(inData) <= MAX_UNIX_SOCKET_PATH) return inData;
  const folder = options.uid === undefined ? 'spillway' : `spillway-${options.uid}`;
  return posix.join(POSIX_TMP, folder, `${dataDirHash(options.dataDir)}.sock`);
}

function dataDirHash(dataDir: string): string {
  return createHash('sha256').update(dataDir).digest('hex').slice(0, 12);
}

/** What the endpoint needs of the hub (the Hub class satisfies it). */
export interface SocketHub {
  readonly token: string;
  connectSession(transport: Transport, kind: SessionTransportKind): Promise<unknown>;
}

export interface SocketEndpointOptions {
  /** Called with the name a bridge gave in its handshake (e.g. `claude-desktop`), for "last seen". */
  onClient?: (client: string) => void;
  /** Socket file or pipe name; see socketPathFor. */
  path: string;
  platform: NodeJS.Platform;
  /** The hub's answer to a bridge's nonce (AppHub.proveIdentity): proves it is this data folder's hub. */
  proveIdentity: (nonce: string) => string;
  /** The user the socket's folder must belong to (default: this process's; tests pass another). */
  uid?: number;
  /**
   * Largest message accepted from a bridge (default: CLIENT_MESSAGE_MAX_BYTES, the HTTP body limit too).
   * A longer line is skipped as it arrives, never held whole; the request it carried is refused (fast-tool-calls.ts).
   */
  maxMessageBytes?: number;
  /** Diagnostics (refused handshakes, garbage lines, messages a session dropped); never on the hot path. */
  onWarning?: (message: string) => void;
}

export interface SocketEndpoint {
  readonly path: string;
  /** Stops listening, ends every bridge connection and removes the socket file. */
  close(): Promise<void>;
}

/** Another hub answered on the socket: this data folder is already being served. */
export class SocketInUseError extends Error {
  override readonly name = 'SocketInUseError';
  constructor(readonly path: string) {
    super(
      `Another Spillway hub is already running for this data folder (it answers on ${path}). If it does not respond, quit it (or end its process) and try again.`,
    );
  }
}

/** Listens for bridges and hands each authenticated connection to `hub.connectSession(…, 'bridge')`. */
export async function attachSocketEndpoint(hub: SocketHub, options: SocketEndpointOptions): Promise<SocketEndpoint> {
  const isPipe = options.platform === 'win32';
  if (!isPipe) await prepareSocketFile(options.path, options.uid ?? process.getuid?.());
  const sockets = new Set<Socket>();
  const server = createServer({ allowHalfOpen: false }, (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    acceptBridge(hub, socket, options);
  });
  await new Promise<void>((resolve, reject) => {
    // A named pipe someone still serves answers EADDRINUSE (Unix sockets were checked above).
    server.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'EADDRINUSE' ? new SocketInUseError(options.path) : err));
    server.listen(options.path, () => {
      server.removeAllListeners('error');
      resolve();
    });
  });
  // The folder is 0700 already, so the moment between listen and chmod exposes nothing.
  if (!isPipe) await chmod(options.path, 0o600);
  server.on('error', (err) => options.onWarning?.(`bridge socket: ${err.message}`));
  let closing: Promise<void> | undefined;
  return {
    path: options.path,
    close: () => (closing ??= closeServer(server, sockets, isPipe ? undefined : options.path)),
  };
}

async function closeServer(server: Server, sockets: Set<Socket>, file: string | undefined): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  for (const s of sockets) s.destroy();
  await closed;
  // server.close() unlinks a Unix socket it created; this covers a crash-free shutdown either way.
  if (file) await unlink(file).catch(() => undefined);
}

/** Owner-only folder; a socket file left by a crashed hub is removed, a live one is refused. */
async function prepareSocketFile(path: string, uid: number | undefined): Promise<void> {
  await privateFolder(posix.dirname(path), uid);
  const stat = await lstat(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (!stat) return;
  if (!stat.isSocket()) throw new Error(`${path} exists and is not a socket; move it away and start Spillway again.`);
  if (await answers(path)) throw new SocketInUseError(path);
  await unlink(path);
}

/**
 * Makes sure only `uid` can reach into `dir`: created owner-only when missing; an existing one must belong
 * to `uid` (a folder, or a link to one, that another user made is refused: they could listen in it).
 * One of ours that others can read (a data folder made by hand) is tightened, but never a shared folder
 * such as /tmp (sticky bit): changing that would break every other user of it.
 */
async function privateFolder(dir: string, uid: number | undefined): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const [link, target] = await Promise.all([lstat(dir), stat(dir)]);
  const next = 'Remove it, or choose a data folder with a shorter path, and start Spillway again.';
  if (!target.isDirectory()) throw new Error(`The bridge socket's folder ${dir} is not a folder. ${next}`);
  if (uid !== undefined && (link.uid !== uid || target.uid !== uid)) {
    throw new Error(`The bridge socket's folder ${dir} belongs to another user, who could listen in it. ${next}`);
  }
  if ((target.mode & 0o077) === 0) return;
  if (target.mode & 0o1000) throw new Error(`The bridge socket's folder ${dir} is shared with other users. ${next}`);
  await chmod(dir, 0o700);
}

/** Whether something accepts connections on the socket. */
export function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createConnection(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

/** The shape of the handshake's lines (anything else is refused). */
interface Hello {
  nonce?: unknown;
  client?: unknown;
  token?: unknown;
}

/**
 * Runs the handshake (see the top of this file): proves the hub to the bridge, checks the bridge's token,
 * then serves the rest of the stream as an MCP session.
 */
function acceptBridge(hub: SocketHub, socket: Socket, options: SocketEndpointOptions): void {
  let buffered = Buffer.alloc(0);
  let client: string | undefined;
  let proven = false;
  const refuse = (error: string) => {
    clearTimeout(timer);
    socket.off('data', onData);
    options.onWarning?.(`bridge connection refused: ${error}`);
    socket.end(`${JSON.stringify({ ok: false, error })}\n`);
  };
  const timer = setTimeout(() => refuse('no handshake within 10 s'), HANDSHAKE_TIMEOUT_MS);
  socket.once('close', () => clearTimeout(timer));
  socket.on('error', () => undefined); // a bridge that vanishes mid-write is not the hub's problem
  /** Handles one handshake line; true when the handshake is over (served or refused). */
  const onLine = (line: string): boolean => {
    let hello: Hello;
    try {
      hello = JSON.parse(line) as Hello;
    } catch {
      hello = {};
    }
    if (!proven) {
      const nonce = hello?.nonce;
      if (typeof nonce !== 'string' || nonce.length < 16 || nonce.length > 200) {
        refuse('the first line must be JSON: {"nonce":"…"} (16 to 200 characters); update the Spillway bridge');
        return true;
      }
      if (typeof hello.client === 'string') client = hello.client.slice(0, 200);
      proven = true;
      socket.write(`${JSON.stringify({ hub: options.proveIdentity(nonce) })}\n`);
      return false;
    }
    if (typeof hello?.token !== 'string' || !hub.token || !tokensEqual(hello.token, hub.token)) {
      refuse('wrong token: read it again from the token file in the Spillway data folder');
      return true;
    }
    serve(hub, socket, client, buffered, options);
    return true;
  };
  const onData = (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    for (let nl = buffered.indexOf(0x0a); nl !== -1; nl = buffered.indexOf(0x0a)) {
      const line = buffered.subarray(0, nl).toString('utf8');
      buffered = buffered.subarray(nl + 1);
      if (onLine(line)) {
        clearTimeout(timer);
        socket.off('data', onData);
        return;
      }
    }
    if (buffered.length > HANDSHAKE_MAX_BYTES) refuse('handshake line too long');
  };
  socket.on('data', onData);
}

/** After the handshake: one MCP session; `rest` is what the bridge sent behind its token line. */
function serve(hub: SocketHub, socket: Socket, client: string | undefined, rest: Buffer, options: SocketEndpointOptions): void {
  socket.pause();
  const transport = new SocketTransport(socket, { client, maxMessageBytes: options.maxMessageBytes, onWarning: options.onWarning });
  socket.write('{"ok":true}\n');
  if (transport.client) options.onClient?.(transport.client);
  hub.connectSession(transport, 'bridge').then(
    (session) => {
      if (session instanceof DownstreamSession) session.onWarning = options.onWarning;
      transport.feed(rest);
    },
    (err: Error) => {
      options.onWarning?.(`bridge session failed to start: ${err.message}`);
      socket.destroy();
    },
  );
}

/** An SDK Transport over an authenticated socket: newline-delimited JSON-RPC, framed in linear time. */
export class SocketTransport extends LineTransport {
  /** The name the bridge gave in its handshake (before the MCP initialize names the real client). */
  readonly client: string | undefined;

  constructor(socket: Socket, options: { client?: string; maxMessageBytes?: number; onWarning?: (message: string) => void }) {
    super(socket, socket, {
      maxMessageBytes: options.maxMessageBytes ?? CLIENT_MESSAGE_MAX_BYTES,
      endOutputOnClose: true,
      onNoise: (line) => options.onWarning?.(`bridge sent a line that is not JSON-RPC: ${line.slice(0, 200)}`),
    });
    this.client = options.client;
  }
}
