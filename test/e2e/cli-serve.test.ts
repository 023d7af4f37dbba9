/**
 * `spillway serve` and `spillway token` as a user runs them: a real process from the built dist, the
 * listening line, the token file, a clear error for a bad config (file left as it was), and no child
 * process left behind after SIGTERM.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { EVERYTHING, NODE, ROOT } from '../support/hub-harness.js';
import { alive, spawnUntil } from '../support/processes.js';

const BIN = join(ROOT, 'electron/cli/spillway.js');
const dirs: string[] = [];
async function tempDir() {
  const d = await mkdtemp(join(tmpdir(), 'spillway-cli-'));
  dirs.push(d);
  return d;
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

function run(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const child = spawn(NODE, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  return once(child, 'exit').then(([code]) => ({ code: code as number, out, err }));
}

describe('spillway serve', () => {
  it('prints the listening line, serves an mcpServers config, and leaves no child after SIGTERM', async () => {
    const dir = await tempDir();
    const config = join(dir, 'claude_desktop_config.json');
    const original = JSON.stringify({ mcpServers: { everything: { command: NODE, args: [EVERYTHING, 'stdio'] } } }, null, 2);
    await writeFile(config, original);
    const hub = await spawnUntil(
      NODE,
      [BIN, 'serve', '--config', config, '--data-dir', dir, '--port', '0'],
      /Spillway listening on (http:\/\/127\.0\.0\.1:(\d+)\/mcp)/,
    );
    try {
      const token = (await readFile(join(dir, 'token'), 'utf8')).trim();
      const tokenCmd = await run(['token', '--data-dir', dir]);
      expect(tokenCmd.out.trim()).toBe(token);

      const client = new Client({ name: 'cli-test', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(hub.match[1]), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
      );
      // initialize is answered at once; the upstream comes up in the background.
      let names: string[] = [];
      const status = async () => {
        const res = await fetch(`http://127.0.0.1:${hub.match[2]}/api/upstreams.list`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
          body: '{}',
        });
        return (await res.json()) as { value: { id: string; status: string }[] };
      };
      // Bounded by time, not by turns: a slow machine starts the server slower than it answers status.
      const deadline = Date.now() + 20_000;
      while ((await status()).value[0]?.status !== 'ready' && Date.now() < deadline) await new Promise((r) => setImmediate(r));
      names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('everything__echo');
      await client.close();
      // The user's mcpServers file is read, never rewritten just by serving.
      expect(await readFile(config, 'utf8')).toBe(original);
    } finally {
      const pids = await childPids(hub.child.pid!);
      await hub.stop();
      expect(hub.child.exitCode).toBe(0);
      expect(pids.filter(alive)).toEqual([]);
    }
  });

  it('refuses an invalid config with the field and the file named, and leaves the file as it was', async () => {
    const dir = await tempDir();
    const config = join(dir, 'config.json');
    const bad = '{"version": 1, "servers": {"x": {"type": "http", "url": "not a url"}}}';
    await writeFile(config, bad);
    const r = await run(['serve', '--config', config, '--data-dir', dir, '--port', '0']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('servers.x.url');
    expect(r.err).toContain(config);
    expect(await readFile(config, 'utf8')).toBe(bad);
  });

  it('names the taken port (given or from the config) and says what to do', async () => {
    const dir = await tempDir();
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    try {
      const given = await run(['serve', '--data-dir', dir, '--port', String(port)]);
      expect(given.code).toBe(2);
      expect(given.err).toContain(`port ${port} is already in use`);
      expect(given.err).toMatch(/Close that program, or choose another port: --port N/);
      await writeFile(join(dir, 'config.json'), JSON.stringify({ version: 1, settings: { port } }));
      const configured = await run(['serve', '--data-dir', dir]);
      expect(configured.code).toBe(2);
      expect(configured.err).toContain(`port ${port} is already in use`);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('`token` for a folder Spillway never ran with says so, fails, and creates nothing', async () => {
    const dir = await tempDir();
    const typo = join(dir, 'Spilway');
    const r = await run(['token', '--data-dir', typo]);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toContain(`has not run with the data folder ${typo}`);
    await expect(stat(typo)).rejects.toThrow(/ENOENT/);
  });

  it('explains a bad port and an unknown command', async () => {
    expect((await run(['serve', '--port', 'abc'])).err).toMatch(/--port must be a whole number/);
    const r = await run(['frobnicate']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown command "frobnicate"/);
  });
});

/** Direct children of a pid (Linux /proc). */
async function childPids(pid: number): Promise<number[]> {
  const out: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === pid) out.push(Number(entry));
  }
  return out;
}
