import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { ChildReaper, type ProcessHooks } from '../../electron/core/upstream/child-reaper.js';
import { buildChildEnv, readLoginShellPath } from '../../electron/core/upstream/child-env.js';
import { OversizedMessageError } from '../../electron/core/wire/line-framer.js';
import { StdioUpstreamTransport, type StdioUpstreamOptions } from '../../electron/core/upstream/stdio-transport.js';
import { UpstreamStartError } from '../../electron/core/upstream/start-error.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const everything = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const bigServer = join(root, 'test/fixtures/big-result-server.mjs');
const noisyServer = join(root, 'test/fixtures/noisy-stdout-server.mjs');
const node = process.execPath;

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

function transport(options: Omit<StdioUpstreamOptions, 'baseEnv' | 'platform'> & Partial<StdioUpstreamOptions>) {
  const t = new StdioUpstreamTransport({ baseEnv: process.env, platform: process.platform, ...options });
  cleanups.push(() => t.close());
  return t;
}

async function connect(t: StdioUpstreamTransport) {
  const client = new Client({ name: 'spillway-test', version: '0.0.0' });
  await client.connect(t);
  cleanups.push(() => client.close());
  return client;
}

/** Same text the fixture builds. */
function bigText(chars: number): string {
  const unit = 'line of log output — ünïcödé ✓ 日本語 🚀\n';
  return unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);
}

/** Whether a process exists and is not a zombie waiting to be reaped by init. */
async function isAlive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
  if (process.platform !== 'linux') return true;
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return stat !== '' && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
}

function expectGone(pid: number | undefined): void {
  expect(pid).toBeTypeOf('number');
  expect(() => process.kill(pid!, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
}

function textOf(result: { content: unknown }): string {
  const [first] = result.content as Array<{ type: string; text: string }>;
  return first.text;
}

describe('StdioUpstreamTransport with real servers', () => {
  it('connects the SDK Client to server-everything, lists tools and calls echo', async () => {
    const t = transport({ command: node, args: [everything, 'stdio'] });
    let closes = 0;
    const client = await connect(t);
    const onclose = t.onclose; // installed by the Client
    t.onclose = () => {
      closes++;
      onclose?.();
    };
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('echo');
    const result = await client.callTool({ name: 'echo', arguments: { message: 'hello über 🚀' } });
    expect(textOf(result as { content: unknown })).toBe('Echo: hello über 🚀');

    const pid = t.pid;
    await t.close();
    expectGone(pid);
    expect(closes).toBe(1);
    expect(t.exitStatus).toEqual({ code: 0, signal: null }); // left on stdin EOF, no signal needed
  });

  it('receives a 15 MB result intact', async () => {
    const t = transport({ command: node, args: [bigServer] });
    const client = await connect(t);
    const chars = 15_000_000;
    const result = await client.request({ method: 'tools/call', params: { name: 'big', arguments: { chars } } }, CallToolResultSchema);
    const text = textOf(result);
    expect(Buffer.byteLength(text)).toBeGreaterThan(15 * 1024 * 1024);
    expect(text.length).toBe(chars);
    expect(text === bigText(chars)).toBe(true);
    // The connection is still good afterwards.
    expect(textOf(await client.request({ method: 'tools/call', params: { name: 'ping' } }, CallToolResultSchema))).toBe('pong');
  });

  it('(why it exists) the SDK StdioClientTransport loses the same 15 MB result and the connection', async () => {
    const sdk = new StdioClientTransport({ command: node, args: [bigServer], stderr: 'pipe' });
    const client = new Client({ name: 'spillway-test', version: '0.0.0' });
    await client.connect(sdk);
    cleanups.push(() => client.close());
    await expect(
      client.request({ method: 'tools/call', params: { name: 'big', arguments: { chars: 15_000_000 } } }, CallToolResultSchema),
    ).rejects.toThrow(/Connection closed/);
  });

  it('fails only the oversized response, promptly, and keeps the connection', async () => {
    const t = transport({ command: node, args: [bigServer], maxMessageBytes: 1024 * 1024 });
    const errors: Error[] = [];
    const client = await connect(t);
    client.onerror = (error) => errors.push(error);
    await expect(
      client.request({ method: 'tools/call', params: { name: 'big', arguments: { chars: 2_000_000 } } }, CallToolResultSchema, {
        timeout: 20_000,
      }),
    ).rejects.toThrow(/exceeds the limit of 1048576 bytes/);
    expect(errors.some((e) => e instanceof OversizedMessageError)).toBe(true);
    expect(textOf(await client.request({ method: 'tools/call', params: { name: 'ping' } }, CallToolResultSchema))).toBe('pong');
  });

  it('ignores garbage a server writes to stdout, reporting it as noise, and keeps its stderr tail', async () => {
    const t = transport({ command: node, args: [noisyServer], stderrTailLines: 2 });
    const noise: string[] = [];
    const stderr: string[] = [];
    t.onNoise = (line) => noise.push(line);
    t.onStderr = (line) => stderr.push(line);
    const client = await connect(t);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['echo']);
    const result = await client.callTool({ name: 'echo', arguments: { message: 'still here' } });
    expect(textOf(result as { content: unknown })).toBe('still here');
    expect(noise).toEqual([
      'Starting noisy server v1.0...',
      '{"level":"info","msg":"valid JSON but not JSON-RPC"}',
      'connected!',
      'handling echo for still here',
      '[1, 2, 3]',
    ]);
    expect(stderr).toEqual([1, 2, 3].map((i) => `noisy-stdout-server: stderr line ${i}`));
    expect(t.stderrTail()).toEqual(['noisy-stdout-server: stderr line 2', 'noisy-stdout-server: stderr line 3']);
  });

  it('writes a multi-megabyte request through stdin with backpressure', async () => {
    const t = transport({ command: node, args: [noisyServer] });
    const client = await connect(t);
    // Well over the pipe's 64 KiB buffer, under the fixture's (SDK server's) own 10 MiB read cap.
    const message = bigText(5_000_000);
    const result = await client.request({ method: 'tools/call', params: { name: 'echo', arguments: { message } } }, CallToolResultSchema);
    expect(textOf(result) === message).toBe(true);
  });
});

describe('StdioUpstreamTransport start and stop', () => {
  it('rejects a command that does not exist with a clear error', async () => {
    const t = transport({ command: 'spillway-no-such-command-4711', args: ['--x'] });
    let closed = false;
    t.onclose = () => (closed = true);
    const error = await t.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamStartError);
    expect((error as UpstreamStartError).message).toBe(
      'Spillway could not find the program "spillway-no-such-command-4711" on this computer. Install it, or enter its full path as the server\'s command.',
    );
    expect((error as UpstreamStartError).code).toBe('ENOENT');
    expect(t.pid).toBeUndefined();
    expect(closed).toBe(false);
    await t.close(); // harmless
    await expect(t.send({ jsonrpc: '2.0', method: 'notifications/initialized' })).rejects.toThrow('Not connected');
  });

  it('reports the same clear error through Client.connect', async () => {
    const client = new Client({ name: 'spillway-test', version: '0.0.0' });
    await expect(client.connect(transport({ command: 'spillway-no-such-command-4711' }))).rejects.toThrow(
      /could not find the program "spillway-no-such-command-4711"/,
    );
  });

  it('says to put the words after the program in Arguments when the command is a whole command line', async () => {
    const t = transport({ command: `${node} /srv/memory/dist/index.js` });
    const error = await t.start().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ENOENT' });
    expect((error as UpstreamStartError).message).toBe(
      `Spillway could not find the program "${node} /srv/memory/dist/index.js" on this computer. If the program is "${node}", keep only that in the server's command and put the words after it in Arguments, one per line; if not, check the program's path.`,
    );
  });

  it('rejects a working directory that does not exist', async () => {
    const t = transport({ command: node, args: ['-e', ''], cwd: join(tmpdir(), 'spillway-no-such-dir-4711') });
    await expect(t.start()).rejects.toMatchObject({ message: expect.stringMatching(/^working directory does not exist: "/), code: 'BAD_CWD' });
  });

  it('puts a long non-tool message back together without blocking, in order with what follows it and the close', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'spillway-inline-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const script = [
      "const text = 'ünï\\n'.repeat(100000);",
      "const big = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { contents: [{ uri: 'mem://a', text }] } });",
      "const after = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'after' } });",
      "process.stdout.write(big + '\\n' + after + '\\n', () => process.exit(0));",
    ].join('\n');
    const adopted: unknown[] = [];
    const t = transport({
      command: node,
      args: ['-e', script],
      spool: { aboveBytes: 64 * 1024, options: { dir, minStringBytes: 16 * 1024 }, adopt: (strings) => adopted.push(...strings) },
    });
    const seen: string[] = [];
    let text = '';
    t.onmessage = (message) => {
      if ('id' in message && 'result' in message) text = (message.result as { contents: { text: string }[] }).contents[0]!.text;
      seen.push('method' in message ? message.method : `response ${String(message.id)}`);
    };
    const closed = new Promise<void>((resolve) => (t.onclose = resolve));
    await t.start();
    await closed;
    seen.push('close');
    expect(seen).toEqual(['response 1', 'notifications/message', 'close']);
    expect(text).toBe('ünï\n'.repeat(100000));
    // Not a tool result: nothing adopted, and its spooled file is gone.
    expect(adopted).toEqual([]);
    expect(await readdir(dir)).toEqual([]);
  });

  it('fires onclose once when the server dies on its own, with its exit status and stderr', async () => {
    const t = transport({
      command: node,
      args: ['-e', "process.stderr.write('fatal: config missing\\npartial'); process.exit(3)"],
    });
    const closed = new Promise<void>((resolve) => (t.onclose = resolve));
    await t.start();
    await closed;
    expect(t.exitStatus).toEqual({ code: 3, signal: null });
    expect(t.stderrTail()).toEqual(['fatal: config missing', 'partial']);
    await expect(t.send({ jsonrpc: '2.0', method: 'notifications/initialized' })).rejects.toThrow('Not connected');
  });

  it('escalates to SIGTERM, then SIGKILL, for a server that ignores stdin EOF and SIGTERM', async () => {
    const t = transport({
      command: node,
      args: ['-e', "process.on('SIGTERM', () => {}); process.stdin.resume(); setInterval(() => {}, 1000); console.error('ready')"],
      closeGraceMs: 100,
      killGraceMs: 100,
    });
    const ready = new Promise<void>((resolve) => (t.onStderr = (line) => line === 'ready' && resolve()));
    let closes = 0;
    t.onclose = () => closes++;
    await t.start();
    await ready;
    const pid = t.pid;
    await t.close();
    expectGone(pid);
    expect(t.exitStatus).toEqual({ code: null, signal: 'SIGKILL' });
    expect(closes).toBe(1);
    await t.close(); // idempotent
  });

  it('passes the user env plus the configured env, with the login-shell PATH', async () => {
    const t = transport({
      command: 'node', // found on the login-shell PATH
      args: ['-e', 'console.error(JSON.stringify({p: process.env.PATH, k: process.env.SPILLWAY_KEY, h: process.env.HOME}))'],
      baseEnv: { HOME: '/home/test', PATH: '/nonexistent' },
      env: { SPILLWAY_KEY: 'configured' },
      loginShellPath: join(node, '..'),
    });
    const closed = new Promise<void>((resolve) => (t.onclose = resolve));
    await t.start();
    await closed;
    expect(JSON.parse(t.stderrTail()[0])).toEqual({ p: join(node, '..'), k: 'configured', h: '/home/test' });
  });

  it('puts a secret argument back from the env as it starts the server (config.json only holds the placeholder)', async () => {
    const t = transport({
      command: node,
      args: ['-e', 'console.error(JSON.stringify(process.argv.slice(1)))', '--', '${SPILLWAY_SECRET_ARG_1}', '${HOME}'],
      env: { SPILLWAY_SECRET_ARG_1: '--token=tok-SECRET' },
    });
    const closed = new Promise<void>((resolve) => (t.onclose = resolve));
    await t.start();
    await closed;
    expect(JSON.parse(t.stderrTail()[0])).toEqual(['--token=tok-SECRET', '${HOME}']);
  });
});

describe.skipIf(process.platform === 'win32')('readLoginShellPath with a real shell', () => {
  it('reads PATH from a login shell whose profile prints noise', async () => {
    const home = await mkdtemp(join(tmpdir(), 'spillway-home-'));
    cleanups.push(() => rm(home, { recursive: true, force: true }));
    await writeFile(join(home, '.profile'), 'echo "welcome to the shell"\nexport PATH="/opt/spillway-test/bin:$PATH"\n');
    const path = await readLoginShellPath({
      platform: process.platform,
      env: { SHELL: '/bin/sh', HOME: home, PATH: '/usr/bin:/bin' },
      timeoutMs: 5000,
    });
    // The login shell also reads /etc/profile, which may set its own PATH first.
    expect(path).toMatch(/^\/opt\/spillway-test\/bin:/);
    expect(path).not.toContain('welcome');
    expect(buildChildEnv({ PATH: '/usr/bin', HOME: home }, {}, path).PATH).toBe(path);
  });

  it('gives undefined for a shell that does not exist', async () => {
    expect(await readLoginShellPath({ platform: 'linux', env: { SHELL: '/nonexistent/shell' } })).toBeUndefined();
  });
});

describe('ChildReaper', () => {
  const sleeper = ['-e', 'setInterval(() => {}, 1000)'];

  it('tracks children until they exit and kills the rest with killAll', async () => {
    const reaper = new ChildReaper({ platform: process.platform });
    const t = transport({ command: node, args: [noisyServer], reaper });
    await t.start();
    const child = spawn(node, sleeper, { stdio: 'ignore' });
    await once(child, 'spawn');
    reaper.track(child);
    expect(reaper.size).toBe(2);
    await reaper.killAll(200);
    expect(reaper.size).toBe(0);
    expectGone(child.pid);
    expectGone(t.pid);
  });

  it('on win32, killAll goes straight to the tree kill (SIGTERM would end only cmd.exe, which then reports the server gone)', async () => {
    const treeKills: number[] = [];
    const reaper = new ChildReaper({
      platform: 'win32',
      // Stands in for `taskkill /T /F` (not on this system): ends the child as a tree kill would.
      forceKill: (child) => {
        treeKills.push(child.pid!);
        child.kill('SIGKILL');
      },
    });
    // A child that ends at once on SIGTERM, as cmd.exe does on TerminateProcess, leaving its own child running.
    const child = spawn(node, sleeper, { stdio: 'ignore' });
    cleanups.push(async () => child.kill('SIGKILL'));
    await once(child, 'spawn');
    reaper.track(child);
    const exited = once(child, 'exit');
    await reaper.killAll(5000);
    expect(await exited).toEqual([null, 'SIGKILL']);
    expect(treeKills).toEqual([child.pid]);
    expect(reaper.size).toBe(0);
  });

  it('kills tracked children synchronously on the exit hook and not after uninstall', async () => {
    const reaper = new ChildReaper({ platform: process.platform });
    const fake = Object.assign(new EventEmitter(), { pid: 0, kill: () => true }) as unknown as ProcessHooks & EventEmitter;
    const uninstall = reaper.installExitHooks(fake);
    const child = spawn(node, sleeper, { stdio: 'ignore' });
    cleanups.push(async () => child.kill('SIGKILL'));
    await once(child, 'spawn');
    reaper.track(child);
    const exited = once(child, 'exit');
    fake.emit('exit');
    expect(await exited).toEqual([null, 'SIGKILL']);
    uninstall();
    expect(fake.listenerCount('exit')).toBe(0);
    expect(fake.listenerCount('SIGTERM')).toBe(0);
  });

  it('on a signal, kills children and re-raises only when no one else handles it', async () => {
    const reaper = new ChildReaper({ platform: process.platform });
    const raised: string[] = [];
    const fake = Object.assign(new EventEmitter(), {
      pid: 42,
      kill: (_pid: number, signal: string) => raised.push(signal),
    }) as unknown as ProcessHooks & EventEmitter;
    reaper.installExitHooks(fake);
    const child = spawn(node, sleeper, { stdio: 'ignore' });
    cleanups.push(async () => child.kill('SIGKILL'));
    await once(child, 'spawn');
    reaper.track(child);

    const appHandler = () => {};
    fake.on('SIGINT', appHandler);
    fake.emit('SIGINT', 'SIGINT'); // the app handles SIGINT itself: leave it alone
    expect(raised).toEqual([]);
    expect(await isAlive(child.pid!)).toBe(true);

    const exited = once(child, 'exit');
    fake.emit('SIGTERM', 'SIGTERM');
    expect(await exited).toEqual([null, 'SIGKILL']);
    expect(raised).toEqual(['SIGTERM']);
    expect(fake.listenerCount('SIGTERM')).toBe(0); // uninstalled before re-raising
  });

  describe.skipIf(process.platform === 'win32')('in a real parent process', () => {
    // The parent starts a server through the transport with a reaper, then dies. The server ignores
    // stdin EOF and SIGTERM, so only the reaper's SIGKILL ends it; it holds a TCP connection to the
    // test, whose closing is the event that says the server is gone.
    const parentScript = (port: number, ending: string) => `
      import { ChildReaper } from ${JSON.stringify(join(root, 'electron/core/upstream/child-reaper.ts'))};
      import { StdioUpstreamTransport } from ${JSON.stringify(join(root, 'electron/core/upstream/stdio-transport.ts'))};
      const reaper = new ChildReaper({ platform: process.platform });
      reaper.installExitHooks(process);
      const server = ${JSON.stringify(
        `process.on('SIGTERM', () => {}); process.stdin.on('end', () => {}); process.stdin.resume(); require('node:net').connect(${port}, '127.0.0.1');`,
      )};
      const t = new StdioUpstreamTransport({
        command: process.execPath, args: ['-e', server], baseEnv: process.env, platform: process.platform, reaper,
      });
      await t.start();
      console.log(t.pid);
      process.stdin.once('data', () => { ${ending} }); // the test says when: once the server has connected
    `;

    async function runParent(ending: string, signal?: NodeJS.Signals) {
      const listener = createServer();
      cleanups.push(() => new Promise((resolve) => listener.close(resolve)));
      listener.listen(0, '127.0.0.1');
      await once(listener, 'listening');
      const connected = once(listener, 'connection') as Promise<[Socket]>;
      const { port } = listener.address() as AddressInfo;

      const parent = spawn(node, ['--import', 'tsx', '--input-type=module', '-e', parentScript(port, ending)], {
        cwd: root,
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      cleanups.push(async () => parent.kill('SIGKILL'));
      const exited = once(parent, 'exit');
      const [firstChunk] = (await once(parent.stdout!, 'data')) as [Buffer];
      const serverPid = Number(firstChunk.toString().trim());
      cleanups.push(async () => {
        try {
          process.kill(serverPid, 'SIGKILL');
        } catch {
          // already gone, as expected
        }
      });
      const [socket] = await connected;
      socket.resume();
      const serverGone = once(socket, 'close');
      if (signal) parent.kill(signal);
      else parent.stdin!.write('go\n');
      const [code, parentSignal] = await exited;
      await serverGone;
      return { serverPid, code, parentSignal };
    }

    it('kills the server when the parent calls process.exit', async () => {
      const { serverPid, code } = await runParent('process.exit(0)');
      expect(code).toBe(0);
      expect(serverPid).toBeGreaterThan(0);
    });

    it('kills the server when the parent gets SIGTERM, and the parent still dies of SIGTERM', async () => {
      const { serverPid, parentSignal } = await runParent('', 'SIGTERM');
      expect(parentSignal).toBe('SIGTERM');
      expect(serverPid).toBeGreaterThan(0);
    });
  });
});
