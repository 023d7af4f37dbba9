/**
 * A real `spillway serve` for third-party clients (issue 13, "Verify"): a temp HOME and data folder, the
 * big-result fixture behind it, a fixed free port (written client entries refuse an ephemeral one), and an
 * environment for client programs that keeps every file they write (~/.claude.json, ~/.mcp-auth,
 * ~/.mcp-inspector, caches) inside that temp HOME.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, LISTENING, plainEnv } from './bridge-client.js';
import { NODE, fixture, freePort } from './hub-harness.js';
import { stopHubsOf } from './hub-processes.js';
import { alive, spawnUntil, type Started } from './processes.js';

export interface Ran {
  code: number | null;
  out: string;
  err: string;
}

export interface ClientHub {
  home: string;
  dataDir: string;
  /** The hub's MCP endpoint. */
  url: string;
  /** The hub's own access token (the data folder's `token` file). */
  token: string;
  /** The environment a client program runs in: the temp HOME, no Spillway variables, no telemetry. */
  env: Record<string, string>;
  /** Runs `spillway <args>` as the user would, against this HOME and data folder. */
  spillway(args: string[]): Promise<Ran>;
  /** A control API call with the hub's token. */
  api<T>(method: string, body?: unknown): Promise<{ ok: boolean; value?: T; message?: string }>;
  /** Stops the `serve` process only (a bridge may then start the folder's hub itself; stop() ends that one too). */
  stopServing(): Promise<void>;
  stop(): Promise<void>;
}

/** Longest a client program may run before it is killed (a safety net for a hung program, not an assertion). */
const RUN_LIMIT_MS = 60_000;

/** Runs a program to its end and collects its output; kills it if it outlives RUN_LIMIT_MS. */
export async function runToExit(command: string, args: string[], options: { env: Record<string, string>; cwd?: string }): Promise<Ran> {
  const child = spawn(command, args, { env: options.env, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const guard = setTimeout(() => child.kill('SIGKILL'), RUN_LIMIT_MS);
  try {
    const [code] = (await once(child, 'close')) as [number | null];
    return { code, out, err };
  } finally {
    clearTimeout(guard);
  }
}

/** Resolves once the process is gone (bounded); true when it is. */
export async function ended(pid: number | undefined): Promise<boolean> {
  if (pid === undefined) return true;
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  return !alive(pid);
}

/** Bridge processes (`spillway.js bridge`) whose command line names this data folder (Linux /proc). */
export async function bridgesOf(dataDir: string): Promise<number[]> {
  const out: number[] = [];
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    const args = (await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).split('\0');
    if (args.includes('bridge') && args.includes(dataDir)) out.push(Number(entry));
  }
  return out;
}

/** Starts a hub on a temp HOME serving the big-result fixture as `big` (tools `big__big`, `big__ping`). */
export async function startClientHub(): Promise<ClientHub> {
  const root = await mkdtemp(join(tmpdir(), 'spillway-clients-'));
  const home = join(root, 'home');
  const dataDir = join(root, 'data');
  await mkdir(home, { recursive: true });
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const port = await freePort();
  const servers = { big: { type: 'stdio', command: NODE, args: [fixture('big-result-server.mjs')] } };
  await writeFile(join(dataDir, 'config.json'), JSON.stringify({ version: 1, settings: { port }, servers }));

  const env = plainEnv({
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    SPILLWAY_DATA_DIR: dataDir,
    // Claude Code reports telemetry and checks for updates unless told not to; nothing here may leave the machine.
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  });
  // Variables that would send a client's files outside the temp HOME.
  for (const k of ['CLAUDE_CONFIG_DIR', 'MCP_CATALOG_PATH', 'MCP_REMOTE_CONFIG_DIR', 'APPDATA', 'LOCALAPPDATA']) delete env[k];

  let hub: Started;
  try {
    hub = await spawnUntil(NODE, [BIN, 'serve', '--data-dir', dataDir, '--port', String(port)], LISTENING, { env });
  } catch (err) {
    await rm(root, { recursive: true, force: true });
    throw err;
  }
  const url = hub.match[1];
  const token = (await readFile(join(dataDir, 'token'), 'utf8')).trim();

  return {
    home,
    dataDir,
    url,
    token,
    env,
    spillway: (args) => runToExit(NODE, [BIN, ...args], { env, cwd: root }),
    async api<T>(method: string, body: unknown = {}) {
      const res = await fetch(`${new URL(url).origin}/api/${method}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return (await res.json()) as { ok: boolean; value?: T; message?: string };
    },
    stopServing: () => hub.stop(),
    async stop() {
      await hub.stop();
      // A hub a bridge started on its own is detached: found by its data folder.
      await stopHubsOf(dataDir);
      await rm(root, { recursive: true, force: true });
    },
  };
}
