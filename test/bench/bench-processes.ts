/**
 * Every process and client the bench starts goes through one `ProcessGroup`, which stops them all at the
 * end — also when a part throws, and (with SIGKILL) if the bench itself exits early.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { Started } from '../support/processes.js';

export class ProcessGroup {
  readonly #children = new Set<ChildProcess>();
  readonly #closers: (() => Promise<unknown>)[] = [];
  /** Processes started by others on our behalf (an SDK stdio client's server). */
  readonly #pids = new Set<number>();
  readonly #onExit = () => {
    for (const child of this.#children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const pid of this.#pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  };

  /** Ctrl-C or a kill skips 'exit' handlers: stop the children first, then exit as the signal would. */
  readonly #onSignal = (signal: NodeJS.Signals) => {
    this.#onExit();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };

  constructor() {
    process.on('exit', this.#onExit);
    process.on('SIGINT', this.#onSignal);
    process.on('SIGTERM', this.#onSignal);
  }

  /** Spawns a tracked process and resolves once a line of its stdout/stderr matches `pattern`. */
  start(command: string, args: string[], pattern: RegExp, options: { env?: NodeJS.ProcessEnv } = {}): Promise<Started> {
    const child = spawn(command, args, { env: options.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.#children.add(child);
    const stop = async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    };
    this.#closers.push(stop);
    let output = '';
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => fail(new Error(`timed out waiting for ${pattern}`)), 30_000);
      const fail = (err: Error) => {
        clearTimeout(timer);
        reject(new Error(`${command} ${args.join(' ')}: ${err.message}\n${output.slice(-2000)}`));
      };
      const onData = (chunk: Buffer) => {
        output += chunk.toString('utf8');
        const match = output.match(pattern);
        if (!match) return;
        clearTimeout(timer);
        // Keep draining (a chatty peer must never block on a full pipe) without keeping what it says.
        child.stdout.off('data', onData).resume();
        child.stderr.off('data', onData).resume();
        child.off('exit', onEarlyExit);
        resolve({ child, match, output: () => output, stop });
      };
      const onEarlyExit = (code: number | null) => fail(new Error(`exited (${code}) before printing ${pattern}`));
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.once('exit', onEarlyExit);
    });
  }

  /** Registers something to close at the end (an SDK client, whose transport stops its own child). */
  track<T extends { close(): Promise<unknown> }>(closable: T): T {
    this.#closers.push(() => closable.close());
    return closable;
  }

  /** A stdio client, and its server's pid to kill should the bench die before closing it. */
  trackStdio(client: { close(): Promise<unknown> }, pid: number | null): void {
    if (pid !== null) this.#pids.add(pid);
    this.#closers.push(async () => {
      await client.close();
      if (pid !== null) this.#pids.delete(pid);
    });
  }

  /** Closes everything, newest first (clients before the processes they talk to). */
  async stopAll(): Promise<void> {
    const closers = this.#closers.splice(0).reverse();
    for (const close of closers) await close().catch(() => undefined);
    this.#onExit();
    this.#children.clear();
    this.#pids.clear();
    process.off('exit', this.#onExit);
    process.off('SIGINT', this.#onSignal);
    process.off('SIGTERM', this.#onSignal);
  }
}

/** A free TCP port on 127.0.0.1 (for peers that refuse port 0). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * Preloaded into peers that bind every interface and have no option against it (supergateway, mcp-hub):
 * every `listen` goes to 127.0.0.1, and the address is printed once listening.
 */
const LOOPBACK_SOURCE = `import net from 'node:net';
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' || (typeof args[0] === 'string' && /^\\d+$/.test(args[0]))) {
    if (typeof args[1] === 'string') args[1] = '127.0.0.1'; else args.splice(1, 0, '127.0.0.1');
  } else if (args[0] && typeof args[0] === 'object' && 'port' in args[0]) {
    args[0] = { ...args[0], host: '127.0.0.1' };
  }
  this.once('listening', () => {
    const a = this.address();
    if (a && typeof a === 'object') process.stderr.write('bench-listening ' + a.address + ' ' + a.port + '\\n');
  });
  return listen.apply(this, args);
};`;
export const LOOPBACK_ONLY = ['--import', `data:text/javascript,${encodeURIComponent(LOOPBACK_SOURCE)}`];
/** What a peer started with LOOPBACK_ONLY prints once it listens. */
export const LISTENING = /bench-listening (\S+) (\d+)/;

/** A field of /proc/<pid>/status in MB (10^6 bytes); Linux only. */
export async function statusMB(pid: number, field: 'VmHWM' | 'VmRSS'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = new RegExp(`${field}:\\s+(\\d+)`).exec(status);
  if (!kib) throw new Error(`no ${field} in /proc/${pid}/status`);
  return (Number(kib[1]) * 1024) / 1e6;
}

/** Linux: restarts the process's peak-RSS count (VmHWM) from its current RSS; false where unsupported. */
export async function resetPeak(pid: number): Promise<boolean> {
  try {
    await writeFile(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}
