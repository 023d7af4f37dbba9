/**
 * `spillway clients` says everything the clients service answers (audit s17, connecting apps): every file a
 * change wrote (Cline keeps its servers in two files, and one Disconnect or Restore changes both), and the
 * Disconnect preview's warning that a Codex config.toml whose servers table is written inline is written
 * anew. The control API's answers used to drop both, so the command named one file and warned of nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { NODE, ROOT } from '../support/hub-harness.js';

const BIN = join(ROOT, 'electron/cli/spillway.js');
let home: string;
let dataDir: string;
const extensionFile = () => join(home, '.config', 'Code', 'User', 'globalStorage', 'saoudrizwan.claude-dev', 'settings', 'cline_mcp_settings.json');
const cliFile = () => join(home, '.cline', 'data', 'settings', 'cline_mcp_settings.json');
const codexFile = () => join(home, '.codex', 'config.toml');
const put = async (file: string, text: string) => {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
};

function run(args: string[]) {
  // Port 9 (discard) has no hub: the command works on the files directly.
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), SPILLWAY_DATA_DIR: dataDir };
  delete env.CODEX_HOME;
  const child = spawn(NODE, [BIN, 'clients', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  return once(child, 'exit').then(([code]) => ({ code: code as number, out, err }));
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'spillway-cli-files-notes-'));
  dataDir = join(home, 'data');
  await mkdir(dataDir, { recursive: true });
  await writeFile(join(dataDir, 'config.json'), JSON.stringify({ version: 1, settings: { port: 9 } }));
});
afterAll(() => rm(home, { recursive: true, force: true }));

describe('spillway clients: every file and every note', () => {
  it('names both of Cline’s files after Disconnect and after Restore', async () => {
    const entry = { command: '/usr/bin/node', args: ['/x/spillway.js', 'bridge'] };
    const A = JSON.stringify({ mcpServers: { a: { command: 'x' }, spillway: entry } }, null, 2);
    const B = JSON.stringify({ mcpServers: { b: { command: 'y' }, spillway: entry } }, null, 2);
    await put(extensionFile(), A);
    await put(cliFile(), B);

    const off = await run(['disconnect', 'cline', '--yes']);
    expect(off.err).toBe('');
    expect(off.code).toBe(0);
    expect(off.out).toContain(`Disconnected: ${extensionFile()}, ${cliFile()}`);

    const back = await run(['restore', 'cline', '--yes']);
    expect(back.code).toBe(0);
    expect(back.out).toMatch(/^Restored (.+)\.$/m);
    const restored = /^Restored (.+)\.$/m.exec(back.out)![1].split(', ').sort();
    expect(restored).toEqual([extensionFile(), cliFile()].sort());
    expect(await readFile(extensionFile(), 'utf8')).toBe(A);
    expect(await readFile(cliFile(), 'utf8')).toBe(B);
  });

  it('warns before Disconnect that a Codex file with its servers table inline is written anew', async () => {
    await put(
      codexFile(),
      `# mine\nmcp_servers = { spillway = { command = "/usr/bin/node", args = ["/x/spillway.js", "bridge"] }, foo = { command = "x" } }\n`,
    );
    const r = await run(['disconnect', 'codex']);
    // Not on a terminal and no --yes: the warning is printed, then nothing is written.
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^- Spillway cannot edit this file's layout in place, so it will write the whole file anew: comments in it will be lost/m);
    expect(await readFile(codexFile(), 'utf8')).toContain('# mine');
  });
});
