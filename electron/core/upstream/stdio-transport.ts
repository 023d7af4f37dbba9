import { spawn, type ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { buildChildEnv, type EnvLike } from './child-env.js';
import { exitOf, forceKillChild, type ChildReaper } from './child-reaper.js';
import { endGroup, ownProcessGroup, signalTree } from './process-group.js';
import { LineFramer, oversizedResponseId, type OversizedMessageError } from '../wire/line-framer.js';
import { RawMessageSpool, type SpooledString } from '../wire/raw-spool.js';
import { inlinedMessage } from '../wire/spooled-strings.js';
import { OrderedDelivery } from '../wire/ordered-delivery.js';
import { PendingWrites } from '../wire/pending-writes.js';
import type { SpoolTarget } from '../wire/spool-target.js';
import { resolveSpawnCommand } from './spawn-command.js';
import { expandSecretArgs } from '../../../shared/config.js';
import { StderrTail } from './stderr-tail.js';
import { assertDirectory, describeStartError, notFoundMessage, UpstreamStartError } from './start-error.js';

export interface StdioUpstreamOptions {
  command: string;
  args?: readonly string[];
  /** Configured variables, laid over `baseEnv` (configured wins). */
  env?: EnvLike;
  cwd?: string;
  /** Largest message accepted from the server; default 256 MiB. Bigger ones fail alone, not the connection. */
  maxMessageBytes?: number;
  /** Lines of stderr kept for `stderrTail()`; default 200. */
  stderrTailLines?: number;
  /** The environment to start from (normally `process.env`). */
  baseEnv: EnvLike;
  platform: NodeJS.Platform;
  /** PATH from the user's login shell (see readLoginShellPath); replaces baseEnv's PATH. */
  loginShellPath?: string;
  /** Tracks the child so it is killed if the app exits without closing this transport. */
  reaper?: ChildReaper;
  /** After stdin is closed, how long the server gets to exit before SIGTERM; default 2000 ms. */
  closeGraceMs?: number;
  /** After SIGTERM, how long before SIGKILL; default 2000 ms. */
  killGraceMs?: number;
  /**
   * Where long lines stream to: a tool result's long texts stay on disk behind placeholders (adopted by
   * the target, e.g. spill/raw-texts.ts); any other message is read back whole before it is delivered.
   */
  spool?: SpoolTarget;
}

/** How the child ended. */
export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Stdout noise longer than this is cut before it reaches `onNoise`. */
const MAX_NOISE_CHARS = 16 * 1024;
/** After the child exits, how long its pipes may stay open (held by a grandchild) before we stop waiting. */
const PIPE_DRAIN_MS = 1000;
/** cmd.exe's exit code for "is not recognized as an internal or external command". */
const CMD_NOT_FOUND = 9009;

/**
 * MCP client transport over a child's stdio, used instead of the SDK's StdioClientTransport: linear
 * framing with a 256 MiB cap, oversized messages and stdout noise survive, Windows shims go through
 * cmd.exe, stderr is kept as a bounded tail, and close() escalates stdin EOF → SIGTERM → SIGKILL.
 */
export class StdioUpstreamTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  /** A stdout line that is not JSON-RPC (cut to 16 KiB). */
  onNoise?: (line: string) => void;
  /** Every stderr line as it arrives (cut to 8 KiB). */
  onStderr?: (line: string) => void;

  readonly #options: StdioUpstreamOptions;
  readonly #framer: LineFramer;
  readonly #stderr: StderrTail;
  #child: ChildProcess | undefined;
  #spawned = false;
  #exit: ExitStatus | undefined;
  #finished = false;
  #resolveFinished!: () => void;
  readonly #whenFinished = new Promise<void>((resolve) => {
    this.#resolveFinished = resolve;
  });
  #closing: Promise<void> | undefined;
  #pipeDrainTimer: NodeJS.Timeout | undefined;
  #groupEnded: Promise<void> = Promise.resolve(); // POSIX: what the server left in its group once it exited, being ended
  /** Ids of the tools/call requests sent and not yet answered: only their results may stay spooled. */
  readonly #toolCalls = new Set<RequestId>();
  /** Ids of the requests sent and not answered (nor cancelled) yet: while there are any, writes are batched. */
  readonly #unanswered = new Set<RequestId>();
  /** stdin while this turn's messages are held back (see #batchWrites). */
  #corked: Writable | undefined;
  /** Messages, in the order the server sent them, while one waits for its long texts to be read back. */
  readonly #inOrder = new OrderedDelivery((error) => this.onerror?.(error));
  /** What this server's long lines have handed to the disk and is not written yet. */
  readonly #pendingWrites = new PendingWrites();

  constructor(options: StdioUpstreamOptions) {
    this.#options = options;
    const target = options.spool;
    this.#framer = new LineFramer({
      maxMessageBytes: options.maxMessageBytes,
      onMessage: (message, spooled) => this.#received(message, spooled),
      ...(target
        ? { spool: { aboveBytes: target.aboveBytes, create: () => new RawMessageSpool({ ...target.options, pending: this.#pendingWrites }) } }
        : {}),
      onNoise: (line) => this.onNoise?.(line.length > MAX_NOISE_CHARS ? `${line.slice(0, MAX_NOISE_CHARS)}…` : line),
      onError: (error) => this.#oversized(error),
      order: this.#inOrder,
    });
    this.#stderr = new StderrTail(options.stderrTailLines ?? 200, (line) => this.onStderr?.(line));
  }

  /** The child's process id once spawned. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** How the child exited, once it has. */
  get exitStatus(): ExitStatus | undefined {
    return this.#exit;
  }

  /** The last lines the server wrote to stderr, oldest first. */
  stderrTail(): string[] {
    return this.#stderr.lines();
  }

  /** Spawns the server; resolves once it runs, rejects with an UpstreamStartError if it cannot start. */
  async start(): Promise<void> {
    if (this.#child || this.#finished) throw new Error('StdioUpstreamTransport already started');
    const o = this.#options;
    if (o.cwd !== undefined) await assertDirectory(o.cwd);
    if (this.#closing) throw new Error('StdioUpstreamTransport was closed before it started');
    const env = buildChildEnv(o.baseEnv, o.env, o.loginShellPath, o.platform);
    const target = resolveSpawnCommand(o.command, expandSecretArgs(o.args ?? [], env), o.platform, comspecOf(env));
    let child: ChildProcess;
    try {
      child = spawn(target.command, target.args, {
        env,
        cwd: o.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        windowsHide: true,
        windowsVerbatimArguments: target.windowsVerbatimArguments,
        detached: ownProcessGroup(o.platform), // POSIX: a group of its own, signalled whole (process-group.ts)
        shell: false,
      });
    } catch (error) {
      this.#finish();
      throw describeStartError(error, o.command);
    }
    this.#child = child;
    this.#wire(child, target.viaCmd);
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', () => {
        this.#spawned = true;
        o.reaper?.track(child);
        resolve();
      });
      child.once('error', (error) => {
        if (this.#spawned) return;
        this.#finish();
        reject(describeStartError(error, o.command));
      });
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || !this.#spawned || this.#exit || this.#closing || !stdin.writable) throw new Error('Not connected');
    if (this.#options.spool) this.#track(message);
    if (this.#unanswered.size > 0) this.#batchWrites(stdin);
    this.#trackUnanswered(message);
    if (stdin.write(`${JSON.stringify(message)}\n`)) return;
    await new Promise<void>((resolve, reject) => {
      const done = (error?: Error): void => {
        stdin.off('drain', onDrain);
        stdin.off('close', onClose);
        if (error) reject(error);
        else resolve();
      };
      const onDrain = (): void => done();
      const onClose = (): void => done(new Error('upstream stdin closed before the message was written'));
      stdin.once('drain', onDrain);
      stdin.once('close', onClose);
    });
  }

  /**
   * While requests are waiting for their answers (the server is busy, more calls are likely in this
   * turn of the event loop), messages are held until the turn's end and go out in one write: each
   * write to the pipe wakes the server, and under load one wake-up per turn instead of one per message
   * costs both processes less. A lone request is written at once.
   */
  #batchWrites(stdin: Writable): void {
    if (this.#corked) return;
    this.#corked = stdin;
    stdin.cork();
    setImmediate(this.#endTurn);
  }

  readonly #endTurn = (): void => {
    const corked = this.#corked;
    this.#corked = undefined;
    corked?.uncork();
  };

  /** Ends stdin, then SIGTERM after closeGraceMs, then SIGKILL; resolves once the child has exited. */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    const child = this.#child;
    if (!child) {
      this.#finish();
      return;
    }
    const { closeGraceMs = 2000, killGraceMs = 2000, platform } = this.#options;
    if (!this.#finished && !this.#exit) {
      try {
        child.stdin?.end(); // EOF is the spec's polite way to ask a stdio server to exit
      } catch {
        // stdin already gone
      }
      if (!(await this.#exitsWithin(child, closeGraceMs))) {
        // On win32 SIGTERM is TerminateProcess of cmd.exe only; go straight to the tree kill.
        if (platform !== 'win32') signalTree(child, 'SIGTERM', platform);
        if (platform === 'win32' || !(await this.#exitsWithin(child, killGraceMs))) forceKillChild(child, platform);
      }
    }
    await this.#whenFinished;
    await this.#groupEnded;
  }

  async #exitsWithin(child: ChildProcess, ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    const exited = Promise.race([exitOf(child), this.#whenFinished]).then(() => true as const);
    try {
      return await Promise.race([exited, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  #wire(child: ChildProcess, viaCmd: boolean): void {
    const { stdin, stdout, stderr } = child;
    stdout?.on('data', (chunk: Buffer) => {
      this.#framer.push(chunk);
      // The disk is behind: stop reading (the server waits on its pipe) until it has caught up.
      if (!this.#pendingWrites.congested || stdout.isPaused()) return;
      stdout.pause();
      void this.#pendingWrites.drained().then(() => stdout.resume());
    });
    stdout?.on('end', () => this.#framer.end());
    stdout?.on('error', (error) => this.#streamError(error));
    stdin?.on('error', (error) => this.#streamError(error));
    stderr?.setEncoding('utf8');
    stderr?.on('data', (text: string) => this.#stderr.push(text));
    stderr?.on('end', () => this.#stderr.flush());
    stderr?.on('error', (error) => this.#streamError(error));
    child.on('error', (error) => {
      if (this.#spawned) this.onerror?.(error); // e.g. a failed kill; spawn failures reject start()
    });
    child.once('exit', (code, signal) => {
      this.#exit = { code, signal };
      // A wrapper gone leaves no server of its own behind.
      const { platform, killGraceMs = 2000 } = this.#options;
      if (ownProcessGroup(platform) && child.pid) this.#groupEnded = endGroup(child.pid, killGraceMs);
      if (viaCmd && code === CMD_NOT_FOUND) {
        this.onerror?.(new UpstreamStartError(notFoundMessage(this.#options.command), 'ENOENT'));
      }
      // A grandchild (behind npx or cmd.exe) may hold the pipes open; do not wait on it forever.
      this.#pipeDrainTimer = setTimeout(() => {
        stdout?.destroy();
        stderr?.destroy();
        this.#finish();
      }, PIPE_DRAIN_MS);
      this.#pipeDrainTimer.unref();
    });
    child.once('close', () => this.#finish());
  }

  #streamError(error: Error & { code?: string }): void {
    // Writing to a server that just exited is expected noise, not a fault worth reporting.
    const benign = error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED' || error.code === 'ECONNRESET';
    if (benign && (this.#exit || this.#closing)) return;
    this.onerror?.(error);
  }

  #track(message: JSONRPCMessage): void {
    if ('method' in message) {
      if (message.method === 'tools/call' && 'id' in message) this.#toolCalls.add(message.id);
      else if (message.method === 'notifications/cancelled') this.#toolCalls.delete(message.params?.requestId as RequestId);
    }
  }

  /** A message from the framer, in its turn; one whose texts are read back holds the next ones until it is delivered. */
  #received(message: JSONRPCMessage, spooled: SpooledString[] | undefined): unknown {
    const id = 'id' in message && !('method' in message) ? message.id : undefined;
    if (id !== undefined) this.#unanswered.delete(id);
    const toolResult = id !== undefined && this.#toolCalls.has(id) && 'result' in message;
    if (id !== undefined) this.#toolCalls.delete(id);
    if (spooled && !(toolResult && this.#options.spool)) {
      return inlinedMessage(message, spooled).then((whole) => {
        if (whole instanceof Error) this.onerror?.(whole);
        else this.onmessage?.(whole);
      });
    }
    if (spooled) this.#options.spool!.adopt(spooled);
    this.onmessage?.(message);
  }

  #deliver(message: JSONRPCMessage): void {
    this.#inOrder.run(() => this.onmessage?.(message));
  }

  #oversized(error: OversizedMessageError): void {
    this.onerror?.(error);
    // Fail the one request that response answered, rather than leaving it to its timeout.
    const id = oversizedResponseId(error);
    if (id === undefined) return;
    this.#unanswered.delete(id);
    this.#deliver({
      jsonrpc: '2.0',
      id,
      error: { code: ErrorCode.InternalError, message: error.message, data: { bytes: error.bytes, limit: error.limit } },
    });
  }

  #trackUnanswered(message: JSONRPCMessage): void {
    if (!('method' in message)) return;
    if ('id' in message) this.#unanswered.add(message.id);
    else if (message.method === 'notifications/cancelled') this.#unanswered.delete(message.params?.requestId as RequestId);
  }

  #finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    clearTimeout(this.#pipeDrainTimer);
    void this.#framer.reset();
    this.#toolCalls.clear();
    this.#unanswered.clear();
    this.#stderr.flush();
    this.#resolveFinished();
    if (this.#spawned) this.#inOrder.run(() => this.onclose?.());
  }
}

function comspecOf(env: Record<string, string>): string | undefined {
  const key = Object.keys(env).find((name) => name.toUpperCase() === 'COMSPEC');
  return key ? env[key] : undefined;
}
