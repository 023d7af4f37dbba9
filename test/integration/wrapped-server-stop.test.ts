/**
 * A server started through a wrapper script (sh → node, no exec) is stopped with the wrapper (audit s11,
 * item 3): on POSIX each server runs in its own process group and the whole group is signalled, so when
 * the hub stops, removes or restarts it no process of it is left. The inner server here ignores stdin
 * EOF and SIGTERM, so only the group's SIGKILL ends it; before, SIGTERM reached the wrapper alone and the
 * server was left running.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioUpstreamTransport } from '../../electron/core/upstream/stdio-transport.js';
import { NODE, ROOT, fixture, startTestHub, type TestHub } from '../support/hub-harness.js';
import { alive } from '../support/processes.js';

/**
 * True while the process runs. A killed server whose wrapper is gone is adopted by init, which may take
 * a moment to reap it (seconds in some containers): until then it is a zombie, dead but still listed.
 */
function running(pid: number): boolean {
  if (!alive(pid)) return false;
  try {
    const state =
      process.platform === 'linux'
        ? readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0]
        : execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim()[0];
    return state !== undefined && state !== 'Z';
  } catch {
    return false; // gone between the two looks
  }
}

const wrapped = (...serverArgs: string[]) => ({
  command: '/bin/sh',
  args: [fixture('wrapper-launch.sh'), NODE, fixture('stubborn-server.mjs'), ...serverArgs],
});
const pids: number[] = [];
let hub: TestHub | undefined;

afterEach(async () => {
  await hub?.stop();
  hub = undefined;
  for (const pid of pids.splice(0)) if (running(pid)) process.kill(pid, 'SIGKILL');
});

async function innerPid(client: Client, tool = 'pid'): Promise<number> {
  const r = await client.callTool({ name: tool, arguments: {} });
  const pid = Number((r.content as { text: string }[])[0].text);
  pids.push(pid);
  return pid;
}

describe.skipIf(process.platform === 'win32')('a server behind a wrapper script', () => {
  it('closing the transport ends the wrapper and the server it started', async () => {
    const transport = new StdioUpstreamTransport({
      ...wrapped('--ignore-sigterm'),
      baseEnv: process.env,
      platform: process.platform,
      closeGraceMs: 100,
      killGraceMs: 300,
    });
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(transport);
    const wrapper = transport.pid!;
    const inner = await innerPid(client);
    expect(inner).not.toBe(wrapper);
    expect(running(inner)).toBe(true);
    await transport.close();
    expect(running(wrapper)).toBe(false);
    expect(running(inner)).toBe(false);
  });

  it('the hub leaves no process of it after restart, remove and stop', async () => {
    hub = await startTestHub({
      version: 1,
      servers: {
        kept: { type: 'stdio', ...wrapped() },
        removed: { type: 'stdio', ...wrapped() },
      },
    });
    await Promise.all([hub.waitForStatus('kept', 'ready'), hub.waitForStatus('removed', 'ready')]);
    const client = await hub.connect();

    const first = await innerPid(client, 'kept__pid');
    expect((await hub.api('upstreams.restart', { id: 'kept' })).ok).toBe(true);
    await hub.waitForStatus('kept', 'ready');
    expect(running(first)).toBe(false);

    const removed = await innerPid(client, 'removed__pid');
    expect((await hub.api('upstreams.remove', { id: 'removed' })).ok).toBe(true);
    await hub.hub.pool.get('removed')?.closed();
    expect(running(removed)).toBe(false);

    const last = await innerPid(client, 'kept__pid');
    await client.close();
    await hub.hub.stop();
    expect(running(last)).toBe(false);
  });

  it("a terminal's Ctrl-C to the hub still ends the server behind the wrapper", async () => {
    // The hub runs in a process group of its own, as a terminal's foreground job does; Ctrl-C is SIGINT
    // to that group, which no longer holds the server: the hub's exit hooks must end it.
    const listener = createServer();
    listener.listen(0, '127.0.0.1');
    await once(listener, 'listening');
    const connected = once(listener, 'connection') as Promise<[Socket]>;
    const { port } = listener.address() as AddressInfo;
    const command = wrapped('--ignore-sigterm', '--connect', String(port));
    const script = `
      import { ChildReaper } from ${JSON.stringify(join(ROOT, 'electron/core/upstream/child-reaper.ts'))};
      import { StdioUpstreamTransport } from ${JSON.stringify(join(ROOT, 'electron/core/upstream/stdio-transport.ts'))};
      const reaper = new ChildReaper({ platform: process.platform });
      reaper.installExitHooks(process);
      const t = new StdioUpstreamTransport({ ...${JSON.stringify(command)}, baseEnv: process.env, platform: process.platform, reaper });
      await t.start();
      console.log(t.pid);
      setInterval(() => {}, 60_000);
    `;
    const hubProcess = spawn(NODE, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = once(hubProcess, 'exit');
    const [socket] = await connected;
    socket.resume();
    const serverGone = once(socket, 'close');
    process.kill(-hubProcess.pid!, 'SIGINT');
    const [, signal] = await exited;
    expect(signal).toBe('SIGINT');
    await serverGone;
    listener.close();
  });
});
