/**
 * `spillway clients …` as a power user runs it, with no hub running (it works on the files), on a temp
 * HOME: list, connect with --yes (the consent text is printed first), refusal without --yes off a
 * terminal, import, restore to the exact bytes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../shared/config.js';
import { NODE, ROOT } from '../support/hub-harness.js';

const BIN = join(ROOT, 'electron/cli/spillway.js');
let home: string;
let dataDir: string;
const cursorFile = () => join(home, '.cursor', 'mcp.json');
const ORIGINAL =
  '// my servers\n{\n  "mcpServers": {\n    "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"] }\n  }\n}\n';

function run(args: string[], dir = dataDir) {
  // Port 9 (discard) has no hub: the command works on the files directly.
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), SPILLWAY_DATA_DIR: dir };
  const child = spawn(NODE, [BIN, 'clients', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  return once(child, 'exit').then(([code]) => ({ code: code as number, out, err }));
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'spillway-cli-home-'));
  dataDir = join(home, 'data');
  await mkdir(dataDir, { recursive: true });
  await writeFile(join(dataDir, 'config.json'), JSON.stringify({ version: 1, settings: { port: 9 } }));
  await mkdir(join(home, '.cursor'), { recursive: true });
  await writeFile(cursorFile(), ORIGINAL);
});
afterAll(() => rm(home, { recursive: true, force: true }));

describe('spillway clients', () => {
  it('lists the clients with their state', async () => {
    const r = await run(['list']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/cursor\s+Cursor\s+not connected/);
    expect(r.out).toMatch(/zed\s+Zed\s+not installed/);
  });

  it('refuses to write without a yes when not on a terminal', async () => {
    const r = await run(['connect', 'cursor']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/add --yes/);
    expect(await readFile(cursorFile(), 'utf8')).toBe(ORIGINAL);
  });

  it('shows the entry, then connects with --yes, keeping the comment and the other server', async () => {
    const r = await run(['connect', 'cursor', '--yes']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('http://127.0.0.1:9/mcp');
    expect(r.out).toMatch(/Connected: .*mcp\.json \(backup/);
    const text = await readFile(cursorFile(), 'utf8');
    expect(text.startsWith('// my servers\n')).toBe(true);
    expect(text).toContain('"files"');
    expect(text).toContain('"spillway"');
  });

  it('imports the client servers into the Spillway config, deduplicated', async () => {
    const r = await run(['import', 'cursor', '--yes']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('Imported: files');
    const config = parseConfig(await readFile(join(dataDir, 'config.json'), 'utf8')).config;
    expect(config.servers.files).toMatchObject({ type: 'stdio', command: 'npx' });
    expect(config.settings.port).toBe(9);
    const again = await run(['import', 'cursor', '--yes']);
    expect(again.out).toContain('has no servers to import');
  });

  it('restores the file to the exact bytes it had', async () => {
    const r = await run(['restore', 'cursor', '--yes']);
    expect(r.code).toBe(0);
    expect(await readFile(cursorFile(), 'utf8')).toBe(ORIGINAL);
  });

  it("warns on disconnect when an import moved the app's servers into Spillway, and restore gives them back", async () => {
    const imported = await run(['import', 'cursor', 'files', '--replace', '--yes']);
    expect(imported.code).toBe(0);
    expect(await readFile(cursorFile(), 'utf8')).not.toContain('"files"');
    const r = await run(['disconnect', 'cursor', '--yes']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/cursor's own servers were moved into Spillway.*`spillway clients restore cursor`/);
    // Each restore undoes one change, newest first: the disconnect, then the import.
    expect((await run(['restore', 'cursor', '--yes'])).code).toBe(0);
    expect((await run(['restore', 'cursor', '--yes'])).code).toBe(0);
    expect(await readFile(cursorFile(), 'utf8')).toBe(ORIGINAL);
    // Nothing moved any more: a plain disconnect says nothing of it.
    await run(['connect', 'cursor', '--yes']);
    expect((await run(['disconnect', 'cursor', '--yes'])).out).not.toMatch(/moved into Spillway/);
  });

  it("says plainly that Spillway's own config is unreadable, for every clients command, and changes nothing", async () => {
    const dir = join(home, 'broken-data');
    await mkdir(dir, { recursive: true });
    const broken = '{"version": 1, "servers": {';
    await writeFile(join(dir, 'config.json'), broken);
    for (const args of [['list'], ['connect', 'cursor', '--yes'], ['disconnect', 'cursor', '--yes'], ['import', 'cursor', '--yes']]) {
      const r = await run(args, dir);
      expect(r.code).toBe(2);
      expect(r.err).toContain(join(dir, 'config.json'));
      expect(r.err).toContain('The file was not changed.');
      expect(r.err).not.toMatch(/\n\s+at /);
    }
    expect(await readFile(join(dir, 'config.json'), 'utf8')).toBe(broken);
  });

  it("leaves a server that uses the app's own variables in the app, and says why", async () => {
    const file = join(home, '.config', 'Code', 'User', 'mcp.json');
    const vscode = JSON.stringify({
      servers: {
        'ws-files': { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '${workspaceFolder}'] },
        fetch: { type: 'stdio', command: 'uvx', args: ['mcp-server-fetch'] },
      },
    });
    await mkdir(join(home, '.config', 'Code', 'User'), { recursive: true });
    await writeFile(file, vscode);
    const named = await run(['import', 'vscode', 'ws-files', '--replace', '--yes']);
    expect(named.code).toBe(1);
    expect(named.err).toContain('ws-files uses ${workspaceFolder}, which only VS Code can fill in; it stays in VS Code. Nothing was changed.');
    expect(await readFile(file, 'utf8')).toBe(vscode);
    const all = await run(['import', 'vscode', '--replace', '--yes']);
    expect(all.code).toBe(0);
    expect(all.out).toContain('Left in vscode: ws-files uses ${workspaceFolder}, which only VS Code can fill in; it stays in VS Code.');
    expect(all.out).toContain('Imported: fetch');
    expect(Object.keys(JSON.parse(await readFile(file, 'utf8')).servers).sort()).toEqual(['spillway', 'ws-files']);
  });

  it('explains an unknown client', async () => {
    const r = await run(['connect', 'notepad', '--yes']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown client "notepad"/);
  });
});
