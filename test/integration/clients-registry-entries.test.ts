/**
 * Which entry the registry edits, on real files in a temp HOME: a "spillway" server the user made
 * themselves is never replaced or removed; Cline's entry goes from whichever of its two files holds it;
 * the consent note for a TOML file that must be rewritten says what the rewrite changes.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  CLIENT_DEFINITIONS,
  createClientRegistry,
  ForeignEntryError,
  type ClientId,
  type ClientRegistry,
  type OsFacts,
  type SpillwayEntry,
} from '../../electron/core/clients/index.js';

const HTTP: SpillwayEntry = { kind: 'http', url: 'http://127.0.0.1:4810/mcp', headers: { Authorization: 'Bearer tok_abc123' } };
const STDIO: SpillwayEntry = {
  kind: 'stdio',
  command: '/opt/Spillway/spillway',
  args: ['/opt/Spillway/resources/app.asar.unpacked/electron/cli/spillway.js', 'bridge', '--data-dir', '/home/u/.config/Spillway'],
};

let root: string;
let os: OsFacts;
let registry: ClientRegistry;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-entries-'));
  const home = join(root, 'home');
  await mkdir(home);
  os = { home, platform: 'linux', env: { HOME: home } };
  registry = createClientRegistry({ os, backupDir: join(root, 'data', 'backups') });
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function put(id: ClientId, text: string, index = 0): Promise<string> {
  const file = (await CLIENT_DEFINITIONS[id].locate(os, async () => [])).files[index];
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
  return file;
}

describe('a "spillway" server the user made themselves', () => {
  const USER_MADE =
    '{\n  "mcpServers": {\n    "spillway": {\n      "command": "npx",\n      "args": ["-y", "spillway-mcp"],\n      "env": {"SPILLWAY_API_KEY": "user-secret-123"}\n    }\n  }\n}\n';

  it('is neither replaced (consent, connect, import with replace) nor removed: the file stays byte for byte, no backup', async () => {
    const file = await put('cursor', USER_MADE);
    const refusal = `Cursor already has a server named “spillway” that Spillway did not add (in ${file}). Rename or remove it in Cursor's settings, then connect again.`;
    await expect(registry.consent('cursor', HTTP)).rejects.toThrow(refusal);
    await expect(registry.connect('cursor', HTTP)).rejects.toThrow(refusal);
    await expect(registry.replaceWithSpillway('cursor', [], HTTP)).rejects.toThrow(refusal);
    await expect(registry.disconnect('cursor')).rejects.toBeInstanceOf(ForeignEntryError);
    await expect(registry.disconnect('cursor')).rejects.toThrow(/Remove it in Cursor's settings if you no longer want it/);
    expect(await readFile(file, 'utf8')).toBe(USER_MADE);
    expect(await registry.backups('cursor')).toEqual([]);
  });

  it("in one of Cline's two files: disconnect checks both before it writes either", async () => {
    const ext = await put('cline', USER_MADE, 0);
    const cli = await put('cline', '{"mcpServers": {}}', 1);
    // Refused: the extension's file is the one Spillway writes, and it holds the user's server.
    await expect(registry.connect('cline', HTTP)).rejects.toBeInstanceOf(ForeignEntryError);
    expect(await readFile(cli, 'utf8')).toBe('{"mcpServers": {}}');
    await writeFile(cli, JSON.stringify({ mcpServers: { spillway: { type: 'streamableHttp', url: HTTP.url } } }));
    const ours = await readFile(cli, 'utf8');
    await expect(registry.disconnect('cline')).rejects.toBeInstanceOf(ForeignEntryError);
    expect(await readFile(ext, 'utf8')).toBe(USER_MADE);
    expect(await readFile(cli, 'utf8')).toBe(ours);
  });
});

describe("Cline's two files", () => {
  it('disconnect removes our entry from the file that holds it, even when it is not the one Spillway would write now', async () => {
    const cli = await put('cline', '{"mcpServers":{}}', 1);
    expect((await registry.connect('cline', HTTP)).file).toBe(cli);
    // The VS Code extension is installed afterwards: its file is now the one Spillway writes.
    const ext = await put('cline', '{"mcpServers":{}}', 0);
    expect(await registry.get('cline', HTTP)).toMatchObject({ configPath: ext, state: { state: 'current' } });
    const outcome = await registry.disconnect('cline');
    expect(outcome).toMatchObject({ file: cli, changed: true });
    expect(JSON.parse(await readFile(cli, 'utf8'))).toEqual({ mcpServers: {} });
    expect(await readFile(ext, 'utf8')).toBe('{"mcpServers":{}}');
    expect((await registry.get('cline', HTTP)).state).toEqual({ state: 'absent' });
  });

  it('disconnect removes it from both files when both hold it, each with a backup', async () => {
    const cli = await put('cline', '{"mcpServers":{}}', 1);
    await registry.connect('cline', HTTP);
    const ext = await put('cline', '{"mcpServers":{}}', 0);
    await registry.connect('cline', HTTP);
    expect(JSON.parse(await readFile(ext, 'utf8')).mcpServers.spillway).toBeTruthy();
    expect((await registry.disconnect('cline')).changed).toBe(true);
    expect(JSON.parse(await readFile(ext, 'utf8'))).toEqual({ mcpServers: {} });
    expect(JSON.parse(await readFile(cli, 'utf8'))).toEqual({ mcpServers: {} });
    expect((await registry.backups('cline')).map((b) => [b.reason, b.file])).toEqual([
      ['disconnect', cli],
      ['disconnect', ext],
      ['connect', ext],
      ['connect', cli],
    ]);
  });
});

describe('a Codex file Spillway must rewrite as a whole', () => {
  it('the consent note says comments go and values may be written differently, as the rewrite does', async () => {
    const before =
      '# mine\nt = 1.0\nhex = 0xff\nml = """\nline1\nline2"""\nmcp_servers = { spillway = { command = "/old/spillway", args = ["bridge"] } }\n';
    const file = await put('codex', before);
    const preview = await registry.consent('codex', STDIO);
    const note = preview.notes.find((n) => n.includes('write the whole file anew'));
    expect(note).toMatch(/comments in it will be lost/);
    expect(note).toMatch(/1\.0 as 1, 0xff as 255, text over several lines on one line/);
    expect((await registry.connect('codex', STDIO)).rewritten).toBe(true);
    const after = await readFile(file, 'utf8');
    expect(after).not.toContain('# mine');
    expect(after).toMatch(/^t = 1$/m);
    expect(after).toMatch(/^hex = 255$/m);
    expect(after).toContain('ml = "line1\\nline2"');
  });
});
