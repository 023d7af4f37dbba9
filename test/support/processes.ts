/** Starting and stopping helper processes in tests, waiting on their output rather than on time. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

export interface Started {
  child: ChildProcess;
  match: RegExpMatchArray;
  output: () => string;
  stop(): Promise<void>;
}

/** Spawns a process and resolves when a line of its stdout/stderr matches `pattern`. */
export function spawnUntil(
  command: string,
  args: string[],
  pattern: RegExp,
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<Started> {
  const child = spawn(command, args, { env: options.env ?? process.env, cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await once(child, 'exit');
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`timed out waiting for ${pattern} from ${command} ${args.join(' ')}\n${output}`));
    }, 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = output.match(pattern);
      if (match) {
        clearTimeout(timer);
        resolve({ child, match, output: () => output, stop });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited (${code}) before printing ${pattern}\n${output}`));
    });
  });
}

/** True while a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
