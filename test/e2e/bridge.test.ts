/**
 * The bridge as Claude Desktop runs it: Spillway's entry is written into a claude_desktop_config.json in a
 * temp HOME, its command and args are read back from that file and spawned with the SDK's stdio client.
 * Through the bridge and a real `spillway serve` (server-everything behind it): tools, list_changed, progress,
 * sampling; then the hub is restarted mid-session and the same client carries on. Runs the built dist.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createClientRegistry } from '../../electron/core/clients/index.js';
import { BIN, LISTENING, toolListed } from '../support/bridge-client.js';
import { EVERYTHING, NODE, fixture } from '../support/hub-harness.js';
import { processesMentioning, stopHubsOf } from '../support/hub-processes.js';
import { alive, spawnUntil, type Started } from '../support/processes.js';

let root: string;
let home: string;
let dataDir: string;
let hub: Started | undefined;

const serve = () => spawnUntil(NODE, [BIN, 'serve', '--data-dir', dataDir, '--port', '0'], LISTENING);

async function stopHub(): Promise<void> {
  const h = hub;
  hub = undefined;
  await h?.stop();
}

/** Reads Spillway's entry back from the client's file, exactly as Claude Desktop would. */
async function claudeDesktopEntry(): Promise<{ command: string; args: string[]; env?: Record<string, string> }> {
  const file = join(home, '.config', 'Claude', 'claude_desktop_config.json');
  const json = JSON.parse(await readFile(file, 'utf8')) as {
    mcpServers: Record<string, { command: string; args: string[]; env?: Record<string, string> }>;
  };
  expect(Object.keys(json.mcpServers)).toEqual(['filesystem', 'spillway']);
  return json.mcpServers.spillway;
}

/** Spawns the entry like Claude Desktop: a stdio MCP client with sampling and roots. */
async function connectLikeClaudeDesktop(): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const entry = await claudeDesktopEntry();
  const transport = new StdioClientTransport({
    command: entry.command,
    args: entry.args,
    env: { ...(process.env as Record<string, string>), ...(entry.env ?? {}) },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const client = new Client({ name: 'claude-ai', version: '0.9.9' }, { capabilities: { sampling: {}, roots: { listChanged: true } } });
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => ({
    role: 'assistant',
    model: 'bridge-test-model',
    content: { type: 'text', text: `sampled: ${JSON.stringify(req.params.messages[0].content)}` },
  }));
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///tmp/bridge-root', name: 'bridge root' }] }));
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-bridge-'));
  home = join(root, 'home');
  dataDir = join(root, 'data');
  await mkdir(join(home, '.config', 'Claude'), { recursive: true });
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  // The user's own file, with a server of theirs that must survive.
  await writeFile(
    join(home, '.config', 'Claude', 'claude_desktop_config.json'),
    JSON.stringify({ mcpServers: { filesystem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/ana'] } } }, null, 2),
  );
  // Port 0 too, so a hub the bridge might start on its own can never clash with anything.
  await writeFile(
    join(dataDir, 'config.json'),
    JSON.stringify({ version: 1, servers: { everything: { type: 'stdio', command: NODE, args: [EVERYTHING, 'stdio'] } }, settings: { port: 0 } }),
  );
  const registry = createClientRegistry({
    os: { home, platform: 'linux', env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config') } },
    backupDir: join(root, 'backups'),
  });
  await registry.connect('claude-desktop', { kind: 'stdio', command: NODE, args: [BIN, 'bridge', '--data-dir', dataDir] });
});

afterAll(async () => {
  await stopHub();
  // A hub the bridge started itself is detached: find it by its data folder and stop it.
  await stopHubsOf(dataDir);
  await rm(root, { recursive: true, force: true });
});

describe('spillway bridge, spawned from the Claude Desktop entry', () => {
  it('relays tools, list_changed, progress and sampling, and survives a hub restart', async () => {
    hub = await serve();
    const { client, transport, stderr } = await connectLikeClaudeDesktop();
    try {
      expect(client.getServerVersion()?.name).toBe('spillway');
      await toolListed(client, 'everything__echo');

      const echo = await client.callTool({ name: 'everything__echo', arguments: { message: 'hello through the bridge' } });
      expect(JSON.stringify(echo.content)).toContain('hello through the bridge');

      // Every progress notification arrives, the last one too (an SDK stdio client drops one that shares a
      // read with the result; the bridge holds the result behind it). A loaded machine that delays the
      // client's read may make some runs lose it; without the bridge's pause all three would.
      let complete = 0;
      for (let run = 0; run < 3; run++) {
        const progress: number[] = [];
        const long = await client.callTool(
          { name: 'everything__trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
          undefined,
          {
            onprogress: (p) => progress.push(p.progress),
          },
        );
        expect(JSON.stringify(long.content)).toMatch(/completed/i);
        expect(progress.length).toBeGreaterThanOrEqual(2);
        if (progress.length === 3) complete++;
      }
      expect(complete).toBeGreaterThanOrEqual(1);

      const sampled = await client.callTool({ name: 'everything__trigger-sampling-request', arguments: { prompt: 'hello sampler', maxTokens: 10 } });
      expect(JSON.stringify(sampled.content)).toContain('sampled:');
      expect(JSON.stringify(sampled.content)).toContain('hello sampler');

      // The hub knows this session came over the bridge, under the client's own name.
      const token = (await readFile(join(dataDir, 'token'), 'utf8')).trim();
      const origin = new URL(hub.match[1]).origin;
      const sessions = await fetch(`${origin}/api/sessions.list`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: '{}' }).then(
        (r) => r.json() as Promise<{ ok: boolean; value: { transport: string; client?: string }[] }>,
      );
      if (sessions.ok) expect(sessions.value).toContainEqual(expect.objectContaining({ transport: 'bridge', client: 'claude-ai' }));

      // Restart the hub while a call is in flight (its first progress has arrived): that call fails once.
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      const inflight = client.callTool({ name: 'everything__trigger-long-running-operation', arguments: { duration: 30, steps: 30 } }, undefined, {
        onprogress: () => started(),
      });
      const failed = inflight.then(
        () => 'succeeded',
        (err: Error) => err.message,
      );
      await running;
      await stopHub();
      expect(await failed).toMatch(/Spillway restarted; please retry/);

      hub = await serve();
      // Same client, same stdio transport: the bridge reconnected and re-initialized behind its back.
      await toolListed(client, 'everything__echo');
      const again = await client.callTool({ name: 'everything__echo', arguments: { message: 'after the restart' } });
      expect(JSON.stringify(again.content)).toContain('after the restart');
      const sampledAgain = await client.callTool({
        name: 'everything__trigger-sampling-request',
        arguments: { prompt: 'still sampling', maxTokens: 10 },
      });
      expect(JSON.stringify(sampledAgain.content)).toContain('still sampling');
      expect(stderr()).toMatch(/reconnecting/);
    } finally {
      const pid = transport.pid;
      await client.close();
      if (pid) for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
      if (pid) expect(alive(pid)).toBe(false);
      await stopHub();
    }
  });

  it('starts the hub itself when none is running, and says so on stderr', async () => {
    expect(hub).toBeUndefined();
    const { client, stderr } = await connectLikeClaudeDesktop();
    try {
      await toolListed(client, 'everything__echo');
      const echo = await client.callTool({ name: 'everything__echo', arguments: { message: 'auto-started' } });
      expect(JSON.stringify(echo.content)).toContain('auto-started');
      expect(stderr()).toMatch(/not running; starting it/);
      expect((await processesMentioning(dataDir)).length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it('with --no-start and no hub, fails the first request with a clear error', async () => {
    await stopHubsOf(dataDir);
    const transport = new StdioClientTransport({
      command: NODE,
      args: [BIN, 'bridge', '--data-dir', dataDir, '--no-start'],
      stderr: 'pipe',
      env: { ...(process.env as Record<string, string>), SPILLWAY_BRIDGE_TIMEOUT_MS: '1000' },
    });
    let stderr = '';
    transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const client = new Client({ name: 'claude-ai', version: '1' });
    await expect(client.connect(transport)).rejects.toThrow(/Spillway is not running/);
    await client.close().catch(() => undefined);
    expect(stderr).toMatch(/--no-start/);
  });
});

describe('spillway bridge, last guards and fallback', () => {
  it('falls back to HTTP when no socket answers, and keeps a result over the client-pipe limit out of the pipe there too', async () => {
    const dir = join(root, 'big-data');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    // Spilling off: the hub passes the whole result on, so only the bridge's own guard stands in the way.
    await writeFile(
      join(dir, 'config.json'),
      JSON.stringify({
        version: 1,
        servers: { big: { type: 'stdio', command: NODE, args: [fixture('big-result-server.mjs')] } },
        settings: { port: 0, spill: { thresholdTokens: null } },
      }),
    );
    const bigHub = await spawnUntil(NODE, [BIN, 'serve', '--data-dir', dir, '--port', '0'], LISTENING);
    const clients: Client[] = [];
    const open = async (args: string[]) => {
      const client = new Client({ name: 'claude-ai', version: '1' });
      await client.connect(
        new StdioClientTransport({ command: NODE, args: [BIN, 'bridge', '--data-dir', dir, '--no-start', ...args], stderr: 'ignore' }),
      );
      clients.push(client);
      await toolListed(client, 'big__ping');
      return client;
    };
    try {
      // Over the socket the hub knows it serves a stdio client and spills what would be too big for it.
      const viaSocket = await open([]);
      const spilled = await viaSocket.callTool({ name: 'big__big', arguments: { chars: 7_000_000 } });
      expect(JSON.stringify(spilled.content)).toContain('spillway://spill/');
      const fine = await viaSocket.callTool({ name: 'big__big', arguments: { chars: 1_000_000 } });
      expect((fine.content as { text: string }[])[0].text.length).toBe(1_000_000);

      // Over the HTTP fallback the bridge says who it is (x-spillway-bridge): the hub serves a bridge
      // session there too and spills what would be too big for the client's pipe (issue 12).
      const viaHttp = await open(['--socket', join(dir, 'nothing-here.sock'), '--url', bigHub.match[1]]);
      expect(JSON.stringify((await viaHttp.callTool({ name: 'big__ping', arguments: {} })).content)).toContain('pong');
      // 7 M characters of partly multi-byte text: about 9.7 MB of JSON.
      const spilledViaHttp = await viaHttp.callTool({ name: 'big__big', arguments: { chars: 7_000_000 } });
      expect(JSON.stringify(spilledViaHttp.content)).toContain('spillway://spill/');
      const fineViaHttp = await viaHttp.callTool({ name: 'big__big', arguments: { chars: 1_000_000 } });
      expect((fineViaHttp.content as { text: string }[])[0].text.length).toBe(1_000_000);
      const token = (await readFile(join(dir, 'token'), 'utf8')).trim();
      const sessions = await fetch(`${new URL(bigHub.match[1]).origin}/api/sessions.list`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: '{}',
      }).then((r) => r.json() as Promise<{ ok: boolean; value: { transport: string }[] }>);
      expect(sessions.ok).toBe(true);
      expect(sessions.value.map((s) => s.transport).sort()).toEqual(['bridge', 'bridge']);

      // A wrong token is refused by the hub; the bridge says so and ends instead of retrying forever.
      const wrong = new Client({ name: 'claude-ai', version: '1' });
      const env = { ...(process.env as Record<string, string>), SPILLWAY_TOKEN: 'not-the-token-of-this-hub' };
      await expect(
        wrong.connect(new StdioClientTransport({ command: NODE, args: [BIN, 'bridge', '--data-dir', dir, '--no-start'], env, stderr: 'ignore' })),
      ).rejects.toThrow(/refused the bridge at .*: this client's settings carry a SPILLWAY_TOKEN that is not this Spillway's token/);
      await wrong.close().catch(() => undefined);
    } finally {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await bigHub.stop();
    }
  });
});
