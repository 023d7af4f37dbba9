/**
 * `spillway clients connect` while a hub runs (issue 13, item 5), with real processes on a temp HOME:
 * the hub listens on another port than its config says, and the new entry carries the port it listens
 * on and a token it accepts at once (no restart); a token written into the folder by another process is
 * accepted too; a hub on `--port 0` refuses to write an HTTP entry and says why, leaving the file as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { NODE, ROOT, fixture, freePort } from '../support/hub-harness.js';
import { spawnUntil, type Started } from '../support/processes.js';

const BIN = join(ROOT, 'electron/cli/spillway.js');
let home: string;
const cursorFile = () => join(home, '.cursor', 'mcp.json');
const ORIGINAL = '{\n  "mcpServers": {}\n}\n';
const hubs: Started[] = [];

function env(dataDir: string): NodeJS.ProcessEnv {
  return { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), SPILLWAY_DATA_DIR: dataDir };
}

function run(args: string[], dataDir: string) {
  const child = spawn(NODE, [BIN, 'clients', ...args], { env: env(dataDir), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  return once(child, 'exit').then(([code]) => ({ code: code as number, out, err }));
}

/** A data folder whose config names port 9 (nothing listens there) and one fixture server. */
async function dataFolder(name: string): Promise<string> {
  const dir = join(home, name);
  await mkdir(dir, { recursive: true });
  const servers = { fx: { type: 'stdio', command: NODE, args: [fixture('fixture-server.mjs')] } };
  await writeFile(join(dir, 'config.json'), JSON.stringify({ version: 1, settings: { port: 9 }, servers }));
  return dir;
}

async function serve(dataDir: string, port: number): Promise<{ url: string }> {
  const hub = await spawnUntil(NODE, [BIN, 'serve', '--data-dir', dataDir, '--port', String(port)], /Spillway listening on (\S+)/, {
    env: env(dataDir),
  });
  hubs.push(hub);
  return { url: hub.match[1] };
}

/** Initializes an MCP session with these headers; answers the HTTP status of a refusal instead of throwing. */
async function tryInitialize(url: string, headers: Record<string, string>): Promise<'ok' | string> {
  const client = new Client({ name: 'cursor', version: '1' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
    await client.close();
    return 'ok';
  } catch (err) {
    return (err as Error).message;
  }
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'spillway-cli-hub-'));
  await mkdir(join(home, '.cursor'), { recursive: true });
});
afterAll(async () => {
  await Promise.all(hubs.map((h) => h.stop()));
  await rm(home, { recursive: true, force: true });
});

describe('spillway clients with a hub running', () => {
  it('writes the port the hub listens on, and the hub accepts the new token at once', async () => {
    await writeFile(cursorFile(), ORIGINAL);
    const dataDir = await dataFolder('data-a');
    const port = await freePort();
    const { url } = await serve(dataDir, port);
    expect(url).toBe(`http://127.0.0.1:${port}/mcp`);

    const r = await run(['connect', 'cursor', '--yes'], dataDir);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const entry = JSON.parse(await readFile(cursorFile(), 'utf8')).mcpServers.spillway;
    expect(entry.url).toBe(url);
    expect(await tryInitialize(entry.url, entry.headers)).toBe('ok');

    const list = await run(['list'], dataDir);
    expect(list.out).toMatch(/cursor\s+Cursor\s+connected/);
  });

  it('accepts a client token another process wrote into the data folder, without a restart', async () => {
    const dataDir = join(home, 'data-a');
    const { url } = { url: JSON.parse(await readFile(cursorFile(), 'utf8')).mcpServers.spillway.url as string };
    const file = join(dataDir, 'client-tokens.json');
    const tokens = JSON.parse(await readFile(file, 'utf8')) as Record<string, string>;
    const token = 'written-by-another-process-0123456789';
    expect(await tryInitialize(url, { Authorization: `Bearer ${token}` })).toMatch(/401|Unauthorized/);
    // As AtomicFile writes it: a temp file renamed over the old one.
    await writeFile(`${file}.tmp`, JSON.stringify({ ...tokens, windsurf: token }));
    await rename(`${file}.tmp`, file);
    expect(await tryInitialize(url, { Authorization: `Bearer ${token}` })).toBe('ok');
  });

  it("a second `serve` on the folder is refused before it touches the connected apps' files", async () => {
    const dataDir = join(home, 'data-a');
    const before = await readFile(cursorFile(), 'utf8');
    const child = spawn(NODE, [BIN, 'serve', '--data-dir', dataDir, '--port', String(await freePort())], {
      env: env(dataDir),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    const [code] = await once(child, 'exit');
    expect(code).toBe(1);
    expect(err).toMatch(/Another Spillway hub is already running/);
    // Still the port of the hub that runs: a repair by the refused hub would have moved Cursor to its port.
    expect(await readFile(cursorFile(), 'utf8')).toBe(before);
  });

  it('on a hub with --port 0, refuses to write an HTTP entry and says why; the file keeps its bytes', async () => {
    await writeFile(cursorFile(), ORIGINAL);
    const dataDir = await dataFolder('data-b');
    await serve(dataDir, 0);
    const r = await run(['connect', 'cursor', '--yes'], dataDir);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/picked at random at each start \(port 0\).*stop working when Spillway restarts.*fixed port/);
    expect(await readFile(cursorFile(), 'utf8')).toBe(ORIGINAL);
    // A bridge entry does not depend on the port: Claude Desktop still connects.
    const claude = await run(['connect', 'claude-desktop', '--yes'], dataDir);
    expect(claude.code).toBe(0);
    const written = JSON.parse(await readFile(join(home, '.config', 'Claude', 'claude_desktop_config.json'), 'utf8'));
    expect(written.mcpServers.spillway.args).toEqual(expect.arrayContaining(['bridge', '--data-dir', dataDir]));
  });

  it("never goes through another folder's hub, even when the folder's hub record points at it", async () => {
    const otherHub = JSON.parse(await readFile(join(home, 'data-a', 'hub.json'), 'utf8')) as { url: string };
    await writeFile(cursorFile(), ORIGINAL);
    const dataDir = await dataFolder('data-d');
    await writeFile(join(dataDir, 'hub.json'), JSON.stringify({ state: 'running', pid: process.pid, configFile: 'x', url: otherHub.url, at: '' }));
    const r = await run(['connect', 'cursor', '--yes'], dataDir);
    expect(r.code).toBe(0);
    // No hub of its own runs: the entry gets the folder's configured port, and a token from its own folder.
    const entry = JSON.parse(await readFile(cursorFile(), 'utf8')).mcpServers.spillway;
    expect(entry.url).toBe('http://127.0.0.1:9/mcp');
    const own = JSON.parse(await readFile(join(dataDir, 'client-tokens.json'), 'utf8')) as Record<string, string>;
    expect(entry.headers.Authorization).toBe(`Bearer ${own.cursor}`);
  });

  it('with no hub, refuses an HTTP entry for a config whose port is 0', async () => {
    await writeFile(cursorFile(), ORIGINAL);
    const dataDir = join(home, 'data-c');
    await mkdir(dataDir, { recursive: true });
    await writeFile(join(dataDir, 'config.json'), JSON.stringify({ version: 1, settings: { port: 0 } }));
    const r = await run(['connect', 'cursor', '--yes'], dataDir);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/port 0/);
    expect(await readFile(cursorFile(), 'utf8')).toBe(ORIGINAL);
  });
});
