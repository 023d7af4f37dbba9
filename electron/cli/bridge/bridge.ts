/**
 * `spillway bridge`: what a stdio-only client (Claude Desktop) runs. Relays this process's stdin/stdout
 * to the hub — over the bridge socket where it can (close to a byte pipe), over Streamable HTTP otherwise —
 * and survives the hub restarting: calls in flight fail once, the session goes on (issue 6, "The bridge").
 *
 * Lines are forwarded as the raw bytes they arrived as. Each is JSON-parsed only to learn what the bridge
 * must track: the client's initialize/initialized (replayed to a new hub), the ids of requests in flight
 * both ways, log level and subscriptions. stdout carries JSON-RPC only; diagnostics go to stderr.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createConnection, type Socket } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { resolvePaths } from '../core/app-paths.js';
import { socketPathFor } from '../core/downstream/socket-endpoint.js';
import { DEFAULT_MAX_MESSAGE_BYTES, oversizedResponseId } from '../core/upstream/line-framer.js';

/** Stdio clients built on the SDK drop any message over 10 MiB and close; stay well below. */
export const MAX_CLIENT_MESSAGE_BYTES = 8 * 1024 * 1024;
/** Lines up to this size are JSON-parsed to find their id; bigger ones are read at their edges only. */
const PARSE_LIMIT = 64 * 1024;
const EDGE = 1024;
const HUB_LOST = 'Spillway restarted; please retry';

type Id = string | number;
/** The fields of a JSON-RPC message the bridge looks at. */
/** How long a response waits behind a progress notification (see #deliver). */
const PROGRESS_FENCE_MS = 10;

interface Peek {
  id?: Id | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: unknown;
}

/** Starts the hub when none answers. The packaged app passes one that launches the app itself. */
export type HubLauncher = () => void | Promise<void>;

export interface BridgeOptions {
  input: Readable;
  output: Writable;
  /** One line of diagnostics (stderr). */
  log: (line: string) => void;
  socketPath: string;
  /** The hub token: read before each connection (SPILLWAY_TOKEN, else the token file). */
  token: () => Promise<string | undefined>;
  /** The HTTP endpoint to fall back to when no socket answers. */
  httpUrl?: () => Promise<string | undefined>;
  /** Undefined with --no-start. */
  startHub?: HubLauncher;
  /** The client this bridge serves (e.g. claude-desktop), sent in the handshake. */
  client?: string;
  /** How long to wait for a hub at start, and after losing one before failing queued calls. */
  timeoutMs?: number;
  /** After losing the hub, how long to wait for it to come back before starting one. */
  restartGraceMs?: number;
}

/** One way to the hub: the socket or an HTTP session. */
interface HubLink {
  readonly kind: 'socket' | 'http';
  /** Sends one line (with its newline); false when the link wants the sender to wait for 'drain'. */
  send(line: Buffer, message: Peek | undefined): boolean;
  onDrain(fn: () => void): void;
  pause(): void;
  resume(): void;
  close(): void;
  /** HTTP only: the negotiated protocol version, for its headers. */
  setProtocolVersion?(version: string): void;
}

/** Splits a byte stream into lines in linear time, keeping each line's bytes (newline included) as they came. */
class RawLines {
  #pieces: Buffer[] = [];
  #bytes = 0;
  #skip: { bytes: number; head: Buffer; tail: Buffer } | undefined;

  constructor(
    private readonly max: number,
    private readonly onLine: (line: Buffer) => void,
    private readonly onOversized: (bytes: number, head: string, tail: string) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl === -1 ? chunk.length : nl + 1;
      this.#append(chunk.subarray(start, end));
      if (nl === -1) return;
      this.#finish();
      start = end;
    }
  }

  reset(): void {
    this.#clear();
    this.#skip = undefined;
  }

  #append(piece: Buffer): void {
    if (this.#skip) {
      this.#skip.bytes += piece.length;
      this.#skip.tail = Buffer.concat([this.#skip.tail, piece]).subarray(-EDGE);
    } else if (this.#bytes + piece.length > this.max + 1) {
      const all = Buffer.concat([...this.#pieces, piece]);
      this.#skip = { bytes: all.length, head: all.subarray(0, EDGE), tail: all.subarray(-EDGE) };
      this.#clear();
    } else {
      this.#pieces.push(piece);
      this.#bytes += piece.length;
    }
  }

  #clear(): void {
    this.#pieces = [];
    this.#bytes = 0;
  }

  #finish(): void {
    if (this.#skip) {
      const { bytes, head, tail } = this.#skip;
      this.#skip = undefined;
      this.onOversized(bytes - 1, head.toString('utf8'), tail.toString('utf8'));
      return;
    }
    const line = this.#pieces.length === 1 ? this.#pieces[0] : Buffer.concat(this.#pieces, this.#bytes);
    this.#clear();
    if (line.length > 1) this.onLine(line);
  }
}

function peek(line: Buffer): Peek | undefined {
  try {
    const m: unknown = JSON.parse(line.toString('utf8'));
    return m !== null && typeof m === 'object' && !Array.isArray(m) ? (m as Peek) : undefined;
  } catch {
    return undefined;
  }
}

const isRequest = (m: Peek | undefined): m is Peek & { id: Id; method: string } => m?.method !== undefined && m.id !== undefined && m.id !== null;
const isResponse = (m: Peek | undefined): m is Peek & { id: Id } => m?.method === undefined && m?.id !== undefined && m.id !== null;
const line = (message: unknown) => Buffer.from(`${JSON.stringify(message)}\n`);
const errorLine = (id: Id, message: string) => line({ jsonrpc: '2.0', id, error: { code: -32603, message } });

/** The relay itself; `run()` resolves with the exit code when the client closes stdin (or start fails). */
export class Bridge {
  readonly #o: Required<Pick<BridgeOptions, 'timeoutMs' | 'restartGraceMs'>> & BridgeOptions;
  #link: HubLink | undefined;
  #ready = false;
  #closed = false;
  /** Client messages waiting for a ready hub (during start, reconnect and replay). */
  #queue: { line: Buffer; message: Peek | undefined }[] = [];
  /** After a failed wait, calls fail at once instead of queueing until the hub is back. */
  #down = false;
  /** Client requests the hub has not answered. */
  #inflight = new Set<Id>();
  /** Hub requests (sampling, roots, elicitation) the client has not answered. */
  #hubRequests = new Set<Id>();
  #init: { pending?: Peek & { id: Id }; done?: Peek; initialized: boolean } = { initialized: false };
  #level: Peek | undefined;
  #subscriptions = new Set<string>();
  /** Replayed requests whose answers the client must not see. */
  #replayIds = new Map<Id, (m: Peek) => void>();
  #replaySeq = 0;
  #hubBlocked = false;
  #clientBlocked = false;
  #exit!: (code: number) => void;
  #fromClient = new RawLines(DEFAULT_MAX_MESSAGE_BYTES, (l) => this.#clientLine(l), (bytes) => this.#o.log(`spillway bridge: dropped a ${bytes}-byte message from the client (over the limit)`));
  #fromHub = new RawLines(MAX_CLIENT_MESSAGE_BYTES, (l) => this.#hubLine(l, undefined), (bytes, head, tail) =>
    this.#oversized(bytes, oversizedResponseId({ head, tail: tail.trimEnd() })),
  );

  constructor(options: BridgeOptions) {
    this.#o = { timeoutMs: 20_000, restartGraceMs: 10_000, ...options };
  }

  run(): Promise<number> {
    const done = new Promise<number>((resolve) => (this.#exit = resolve));
    const { input, output } = this.#o;
    input.on('data', (chunk: Buffer) => this.#fromClient.push(chunk));
    input.once('end', () => this.close(0));
    output.on('error', () => this.close(0)); // the client is gone (EPIPE)
    void this.#connect(true);
    return done;
  }

  close(code: number): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#link?.close();
    this.#link = undefined;
    // Release stdin so the process can end on its own once stdout is flushed.
    this.#o.input.destroy();
    this.#exit(code);
  }

  // ── client → hub ───────────────────────────────────────────────────────────────────────────
  #clientLine(raw: Buffer): void {
    const m = peek(raw);
    if (this.#down && !this.#link) {
      // Waiting was given up: answer at once rather than queue without bound.
      if (isRequest(m)) this.#toClient(errorLine(m.id, 'Spillway is not running; start the Spillway app and retry'));
      return;
    }
    if (isRequest(m)) {
      this.#inflight.add(m.id);
      if (m.method === 'initialize') this.#init.pending = m;
      else if (m.method === 'logging/setLevel') this.#level = m;
      else if (m.method === 'resources/subscribe' && typeof m.params?.uri === 'string') this.#subscriptions.add(m.params.uri);
      else if (m.method === 'resources/unsubscribe' && typeof m.params?.uri === 'string') this.#subscriptions.delete(m.params.uri);
    } else if (m?.method === 'notifications/initialized') {
      this.#init.initialized = true;
    } else if (m?.method === 'notifications/cancelled') {
      this.#inflight.delete(m.params?.requestId as Id);
    } else if (isResponse(m)) {
      // An answer to a hub that has since gone away would confuse the new one.
      if (!this.#hubRequests.delete(m.id)) return;
    }
    if (this.#ready && this.#link) this.#sendToHub(raw, m);
    else this.#queue.push({ line: raw, message: m });
  }

  #sendToHub(raw: Buffer, m: Peek | undefined): void {
    const link = this.#link!;
    if (!link.send(raw, m) && !this.#hubBlocked) {
      this.#hubBlocked = true;
      this.#o.input.pause();
      link.onDrain(() => {
        this.#hubBlocked = false;
        this.#o.input.resume();
      });
    }
  }

  // ── hub → client ───────────────────────────────────────────────────────────────────────────
  #hubLine(raw: Buffer, parsed: Peek | undefined): void {
    let m = parsed;
    let id: Id | undefined;
    if (!m && raw.length > PARSE_LIMIT) {
      // A big result: its id is at one of its ends; parsing megabytes would cost more than the hop.
      id = oversizedResponseId({ head: raw.subarray(0, EDGE).toString('utf8'), tail: raw.subarray(-EDGE - 1).toString('utf8').trimEnd() });
    }
    if (id === undefined) {
      m ??= peek(raw);
      if (isResponse(m)) id = m.id;
      else if (isRequest(m)) this.#hubRequests.add(m.id);
    }
    if (id !== undefined) {
      const replayed = this.#replayIds.get(id);
      if (replayed) {
        this.#replayIds.delete(id);
        return replayed((m ??= peek(raw)) ?? {});
      }
      this.#inflight.delete(id);
      if (this.#init.pending?.id === id) {
        m ??= peek(raw);
        this.#init = { done: this.#init.pending, initialized: this.#init.initialized };
        const version = m?.result?.protocolVersion;
        if (typeof version === 'string') this.#link?.setProtocolVersion?.(version);
      }
    }
    this.#deliver(raw, m?.method === 'notifications/progress', id !== undefined);
  }

  /**
   * SDK stdio clients (1.x) drop a progress notification that they read in the same chunk as the result
   * it belongs to: the response handler removes the progress handler before the notification's
   * (microtask-deferred) handler runs. So after a progress notification, a response waits a moment, and
   * everything behind it keeps its order.
   */
  #held: Buffer[] = [];
  #fence: NodeJS.Timeout | undefined;

  #deliver(raw: Buffer, progress: boolean, response: boolean): void {
    if (this.#fence && (response || this.#held.length > 0)) {
      this.#held.push(raw);
      return;
    }
    this.#toClient(raw);
    if (!progress) return;
    clearTimeout(this.#fence);
    this.#fence = setTimeout(() => {
      this.#fence = undefined;
      const held = this.#held;
      this.#held = [];
      for (const line of held) this.#toClient(line);
    }, PROGRESS_FENCE_MS);
  }

  /** A hub message too big for a stdio client: a response becomes an error for its id, anything else is dropped. */
  #oversized(bytes: number, id: Id | undefined): void {
    const mib = (bytes / 1024 / 1024).toFixed(1);
    const limit = MAX_CLIENT_MESSAGE_BYTES / 1024 / 1024;
    this.#o.log(`spillway bridge: a ${mib} MiB message from the hub is over the ${limit} MiB stdio limit; ${id === undefined ? 'dropped' : 'replaced by an error'}`);
    if (id === undefined) return;
    this.#inflight.delete(id);
    const advice = 'Turn on spilling for this tool in Spillway, or ask for less.';
    this.#toClient(errorLine(id, `The result is ${mib} MiB, more than a stdio client accepts in one message (${limit} MiB). ${advice}`));
  }

  #toClient(raw: Buffer): void {
    if (this.#closed) return;
    if (!this.#o.output.write(raw) && this.#link && !this.#clientBlocked) {
      // The client reads slower than the hub writes: hold the hub back rather than buffer without bound.
      const link = this.#link;
      this.#clientBlocked = true;
      link.pause();
      this.#o.output.once('drain', () => {
        this.#clientBlocked = false;
        link.resume();
      });
    }
  }

  // ── the hub connection ─────────────────────────────────────────────────────────────────────
  async #connect(first: boolean): Promise<void> {
    const began = Date.now();
    let delay = 25;
    let started = false;
    let reported = false;
    while (!this.#closed) {
      const link = await this.#open().catch((err: Error) => {
        // A hub that refuses our token will not change its mind: say why, and end.
        this.#giveUp(`Spillway refused the bridge: ${err.message}`);
        this.close(1);
        return undefined;
      });
      if (this.#closed) return link?.close();
      if (link) return this.#attach(link);
      const waited = Date.now() - began;
      if (!started && this.#o.startHub && waited >= (first ? 0 : this.#o.restartGraceMs)) {
        started = true;
        this.#o.log('spillway bridge: Spillway is not running; starting it');
        await Promise.resolve(this.#o.startHub()).catch((err: Error) => this.#o.log(`spillway bridge: could not start Spillway: ${err.message}`));
      }
      if (!reported && waited >= this.#o.timeoutMs) {
        reported = true;
        const why = this.#o.startHub
          ? `Spillway did not start within ${Math.round(this.#o.timeoutMs / 1000)} s (no hub answers on ${this.#o.socketPath}).`
          : `Spillway is not running (nothing answers on ${this.#o.socketPath}) and --no-start was given.`;
        this.#giveUp(why);
        if (first) return this.close(1);
      }
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, reported ? 2000 : 500);
    }
  }

  /** Stops queueing: every waiting call gets `why` as its error, and so will new ones until a hub is back. */
  #giveUp(why: string): void {
    this.#o.log(`spillway bridge: ${why}`);
    this.#down = true;
    // Queued requests are in #inflight too (they count from the moment the client sent them).
    this.#queue = [];
    for (const id of this.#inflight) this.#toClient(errorLine(id, why));
    this.#inflight.clear();
  }

  /** The socket if one answers, else the HTTP endpoint if it answers; undefined if neither. */
  async #open(): Promise<HubLink | undefined> {
    const token = await this.#o.token();
    if (!token) return undefined; // no token file yet: the hub has never run here
    const socket = await openSocket(this.#o.socketPath, token, this.#o.client);
    if (socket) return this.#socketLink(socket.socket, socket.rest);
    const url = await this.#o.httpUrl?.();
    return url ? this.#httpLink(url, token) : undefined;
  }

  #attach(link: HubLink): void {
    this.#link = link;
    this.#down = false;
    this.#o.log(`spillway bridge: connected to Spillway (${link.kind})`);
    const init = this.#init.done;
    if (!init) return this.#flush();
    // A new hub: introduce the client again as it introduced itself, and hide the answers.
    const replay = (m: Peek, then: (answer: Peek) => void) => {
      const id = `spillway-bridge-${++this.#replaySeq}`;
      this.#replayIds.set(id, then);
      link.send(line({ ...m, id }), { ...m, id });
    };
    replay(init, (answer) => {
      const version = answer.result?.protocolVersion;
      if (typeof version === 'string') link.setProtocolVersion?.(version);
      if (this.#init.initialized) link.send(line({ jsonrpc: '2.0', method: 'notifications/initialized' }), { method: 'notifications/initialized' });
      if (this.#level) replay(this.#level, () => undefined);
      for (const uri of this.#subscriptions) replay({ jsonrpc: '2.0', method: 'resources/subscribe', params: { uri } } as Peek, () => undefined);
      this.#flush();
    });
  }

  #flush(): void {
    this.#ready = true;
    for (const q of this.#queue.splice(0)) this.#sendToHub(q.line, q.message);
  }

  /** The hub went away: fail what it was doing, then wait for the next one. */
  #lost(link: HubLink): void {
    if (link !== this.#link || this.#closed) return;
    this.#link = undefined;
    this.#ready = false;
    this.#fromHub.reset();
    this.#replayIds.clear();
    this.#hubRequests.clear();
    // Calls still queued never reached that hub: they wait for the next one; the rest fail once.
    const queued = new Set(this.#queue.filter((q) => isRequest(q.message)).map((q) => q.message!.id as Id));
    for (const id of this.#inflight) {
      if (queued.has(id)) continue;
      this.#toClient(errorLine(id, HUB_LOST));
      this.#inflight.delete(id);
    }
    this.#o.log('spillway bridge: lost the connection to Spillway; reconnecting');
    void this.#connect(false);
  }

  #socketLink(socket: Socket, rest: Buffer): HubLink {
    const link: HubLink = {
      kind: 'socket',
      send: (raw) => socket.write(raw),
      onDrain: (fn) => socket.once('drain', fn),
      pause: () => socket.pause(),
      resume: () => socket.resume(),
      close: () => socket.destroy(),
    };
    socket.on('data', (chunk: Buffer) => this.#fromHub.push(chunk));
    socket.on('error', () => undefined);
    socket.once('close', () => this.#lost(link));
    if (rest.length > 0) queueMicrotask(() => this.#fromHub.push(rest));
    socket.resume();
    return link;
  }

  async #httpLink(url: string, token: string): Promise<HubLink | undefined> {
    if (!(await httpAnswers(url, token))) return undefined;
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    // The header tells the hub this HTTP session feeds a stdio client (so it can spill what a pipe cannot take).
    const headers = { authorization: `Bearer ${token}`, 'x-spillway-bridge': '1' };
    const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
    const link: HubLink = {
      kind: 'http',
      send: (raw, m) => {
        if (!m) return true;
        transport.send(m as Parameters<typeof transport.send>[0]).catch((err: Error) => {
          // Nothing reached a live session (connection refused, or 404 after a hub restart): resend it later.
          if (link !== this.#link) return;
          this.#o.log(`spillway bridge: HTTP send failed: ${err.message}`);
          if (isRequest(m) && !String(m.id).startsWith('spillway-bridge-')) {
            this.#inflight.delete(m.id);
            this.#queue.unshift({ line: raw, message: m });
          }
          this.#lost(link);
        });
        return true;
      },
      onDrain: (fn) => fn(),
      pause: () => undefined,
      resume: () => undefined,
      close: () => void transport.close().catch(() => undefined),
      setProtocolVersion: (v) => transport.setProtocolVersion(v),
    };
    transport.onmessage = (m) => {
      const raw = line(m);
      if (raw.length > MAX_CLIENT_MESSAGE_BYTES + 1) this.#oversized(raw.length - 1, isResponse(m as Peek) ? (m as Peek).id! : undefined);
      else this.#hubLine(raw, m as Peek);
    };
    transport.onerror = (err) => {
      this.#o.log(`spillway bridge: ${err.message}`);
      void httpAnswers(url, token).then(
        (ok) => ok || this.#lost(link),
        () => this.#lost(link),
      );
    };
    await transport.start();
    return link;
  }
}

/** Connects and authenticates; undefined when nothing answers. Throws when the hub refuses the token. */
export function openSocket(path: string, token: string, client = 'spillway-bridge'): Promise<{ socket: Socket; rest: Buffer } | undefined> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    let head = Buffer.alloc(0);
    socket.once('error', () => resolve(undefined));
    socket.once('close', () => resolve(undefined));
    socket.once('connect', () => socket.write(`${JSON.stringify({ token, client })}\n`));
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const nl = head.indexOf(0x0a);
      if (nl === -1) return;
      socket.off('data', onData);
      socket.pause();
      let answer: { ok?: boolean; error?: string } | undefined;
      try {
        answer = JSON.parse(head.subarray(0, nl).toString('utf8')) as typeof answer;
      } catch {
        /* not a Spillway hub */
      }
      if (answer?.ok) return resolve({ socket, rest: head.subarray(nl + 1) });
      socket.destroy();
      reject(new Error(`the hub refused the bridge: ${answer?.error ?? 'unexpected answer'}`));
    };
    socket.on('data', onData);
  });
}

/** Whether a hub answers at `url`; throws when it answers but refuses the token. */
async function httpAnswers(url: string, token: string): Promise<boolean> {
  let res: Response;
  try {
    res = await fetch(url, { method: 'GET', headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(1500) });
  } catch {
    return false;
  }
  await res.body?.cancel();
  if (res.status === 401 || res.status === 403) throw new Error(`the hub at ${url} refused the token (HTTP ${res.status})`);
  return true;
}

/**
 * Starts a hub for this data folder, detached so it outlives the bridge. Inside the packaged app
 * (ELECTRON_RUN_AS_NODE set) that is the app itself; in development `spillway serve` from this CLI.
 */
export function hubLauncher(options: { dataDir: string; execPath: string; script: string; env: NodeJS.ProcessEnv }): HubLauncher {
  return () => {
    const { ELECTRON_RUN_AS_NODE, ...env } = options.env;
    const out = openSync(join(options.dataDir, 'hub-autostart.log'), 'a', 0o600);
    try {
      const args = ELECTRON_RUN_AS_NODE ? [] : [options.script, 'serve', '--data-dir', options.dataDir];
      const child = spawn(options.execPath, args, {
        detached: true,
        stdio: ['ignore', out, out],
        env: { ...env, SPILLWAY_DATA_DIR: options.dataDir },
        windowsHide: true,
      });
      child.once('error', () => undefined);
      child.unref();
    } finally {
      closeSync(out);
    }
  };
}

/** `spillway bridge [--data-dir DIR] [--socket PATH] [--url URL] [--no-start]`. */
export async function bridgeCommand(args: string[], deps: { startHub?: HubLauncher } = {}): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      'data-dir': { type: 'string' },
      config: { type: 'string' },
      socket: { type: 'string' },
      url: { type: 'string' },
      'no-start': { type: 'boolean', default: false },
      client: { type: 'string' },
    },
    strict: true,
  });
  const env = process.env;
  const paths = resolvePaths({ dataDir: values['data-dir'], configFile: values.config, os: { home: homedir(), platform: process.platform, env } });
  const mkdirData = async () => (await import('node:fs/promises')).mkdir(paths.dataDir, { recursive: true, mode: 0o700 });
  const timeoutMs = Number(env.SPILLWAY_BRIDGE_TIMEOUT_MS) || undefined;
  const bridge = new Bridge({
    timeoutMs,
    input: process.stdin,
    output: process.stdout,
    log: (l) => process.stderr.write(`${l}\n`),
    client: values.client,
    socketPath: values.socket ?? socketPathFor({ dataDir: paths.dataDir, platform: process.platform, tmpDir: tmpdir() }),
    token: async () => env.SPILLWAY_TOKEN || (await readFile(paths.tokenFile, 'utf8').then((t) => t.trim(), () => undefined)),
    httpUrl: async () => {
      if (values.url) return values.url;
      const port = await configuredPort(paths.configFile);
      return port ? `http://127.0.0.1:${port}/mcp` : undefined;
    },
    startHub: values['no-start']
      ? undefined
      : deps.startHub ??
        (async () => {
          await mkdirData();
          hubLauncher({ dataDir: paths.dataDir, execPath: process.execPath, script: process.argv[1], env })();
        }),
  });
  const code = await bridge.run();
  // Whatever the SDK's HTTP transport or a half-closed pipe still holds must not keep a finished bridge alive.
  setTimeout(() => process.exit(code), 2000).unref();
  return code;
}

/** The port in the config file, or the default; undefined for 0 (a port picked at each start cannot be guessed). */
async function configuredPort(configFile: string): Promise<number | undefined> {
  const { defaultConfig } = await import('../../shared/config.js');
  let port: unknown;
  try {
    port = (JSON.parse(await readFile(configFile, 'utf8')) as { settings?: { port?: unknown } }).settings?.port;
  } catch {
    /* no config yet: the default */
  }
  if (port === 0) return undefined;
  return typeof port === 'number' ? port : defaultConfig().settings.port;
}
