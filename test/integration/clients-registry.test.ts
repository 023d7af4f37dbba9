import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { chmod, lstat, mkdir, mkdtemp, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  applyConnect,
  CLIENT_DEFINITIONS,
  CLIENT_IDS,
  ConfigParseError,
  ConfigWriteError,
  createClientRegistry,
  editConfigFile,
  NoBackupError,
  UnsupportedEntryError,
  type ClientId,
  type ClientRegistry,
  type OsFacts,
  type SpillwayEntry,
} from '../../electron/core/clients/index.js';
import { listBackups, sha256 } from '../../electron/core/clients/backup-store.js';

const fixture = (name: string) => readFile(fileURLToPath(new URL(`../fixtures/clients/${name}`, import.meta.url)));

const HTTP: SpillwayEntry = { kind: 'http', url: 'http://127.0.0.1:4810/mcp', headers: { Authorization: 'Bearer tok_abc123' } };
/** The bridge as the packaged app writes it (`<app> <spillway.js> bridge --data-dir <folder>`). */
const STDIO: SpillwayEntry = {
  kind: 'stdio',
  command: '/opt/Spillway/spillway',
  args: ['/opt/Spillway/resources/app.asar.unpacked/electron/cli/spillway.js', 'bridge', '--data-dir', '/home/u/.config/Spillway'],
  env: { ELECTRON_RUN_AS_NODE: '1' },
};
const entryFor = (id: ClientId): SpillwayEntry => (CLIENT_DEFINITIONS[id].kinds[0] === 'stdio' ? STDIO : HTTP);

let root: string;
let home: string;
let os: OsFacts;
let registry: ClientRegistry;
let clock: number;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-clients-'));
  home = join(root, 'home');
  await mkdir(home);
  os = { home, platform: 'linux', env: { HOME: home } };
  clock = Date.parse('2025-01-02T03:04:05.000Z');
  registry = createClientRegistry({ os, backupDir: join(root, 'data', 'backups'), now: () => new Date(clock++) });
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function pathOf(id: ClientId, index = 0): Promise<string> {
  return (await CLIENT_DEFINITIONS[id].locate(os, async () => [])).files[index];
}

async function put(id: ClientId, bytes: string | Buffer, index = 0): Promise<string> {
  const file = await pathOf(id, index);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, bytes);
  return file;
}

const H = '{\n      "Authorization": "Bearer tok_abc123"\n    }';
/** Golden files: what each client's file holds after connecting to a missing file. */
const GOLDEN: Record<ClientId, string> = {
  'claude-desktop':
    '{\n  "mcpServers": {\n    "spillway": {\n      "command": "/opt/Spillway/spillway",\n      "args": [\n        "/opt/Spillway/resources/app.asar.unpacked/electron/cli/spillway.js",\n        "bridge",\n        "--data-dir",\n        "/home/u/.config/Spillway"\n      ],\n      "env": {\n        "ELECTRON_RUN_AS_NODE": "1"\n      }\n    }\n  }\n}\n',
  'claude-code': `{\n  "mcpServers": {\n    "spillway": {\n      "type": "http",\n      "url": "http://127.0.0.1:4810/mcp",\n      "headers": ${H.replace(/\n/g, '\n  ')}\n    }\n  }\n}\n`,
  cursor: `{\n  "mcpServers": {\n    "spillway": {\n      "url": "http://127.0.0.1:4810/mcp",\n      "headers": ${H.replace(/\n/g, '\n  ')}\n    }\n  }\n}\n`,
  vscode: `{\n  "servers": {\n    "spillway": {\n      "type": "http",\n      "url": "http://127.0.0.1:4810/mcp",\n      "headers": ${H.replace(/\n/g, '\n  ')}\n    }\n  }\n}\n`,
  windsurf: `{\n  "mcpServers": {\n    "spillway": {\n      "serverUrl": "http://127.0.0.1:4810/mcp",\n      "headers": ${H.replace(/\n/g, '\n  ')}\n    }\n  }\n}\n`,
  cline: `{\n  "mcpServers": {\n    "spillway": {\n      "type": "streamableHttp",\n      "url": "http://127.0.0.1:4810/mcp",\n      "headers": ${H.replace(/\n/g, '\n  ')}\n    }\n  }\n}\n`,
  zed: `{\n  "context_servers": {\n    "spillway": {\n      "url": "http://127.0.0.1:4810/mcp",\n      "headers": ${H.replace(/\n/g, '\n  ')}\n    }\n  }\n}\n`,
  'lm-studio': `{\n  "mcpServers": {\n    "spillway": {\n      "url": "http://127.0.0.1:4810/mcp",\n      "headers": ${H.replace(/\n/g, '\n  ')}\n    }\n  }\n}\n`,
  'gemini-cli': `{\n  "mcpServers": {\n    "spillway": {\n      "httpUrl": "http://127.0.0.1:4810/mcp",\n      "headers": ${H.replace(/\n/g, '\n  ')}\n    }\n  }\n}\n`,
  codex:
    '[mcp_servers.spillway]\ncommand = "/opt/Spillway/spillway"\nargs = [ "/opt/Spillway/resources/app.asar.unpacked/electron/cli/spillway.js", "bridge", "--data-dir", "/home/u/.config/Spillway" ]\nenv = { ELECTRON_RUN_AS_NODE = "1" }\n',
};

describe('golden entries: connect to a missing file and folder', () => {
  for (const id of CLIENT_IDS) {
    it(`${id}: writes exactly the golden file, owner-only; restore deletes it`, async () => {
      const file = await pathOf(id);
      const outcome = await registry.connect(id, entryFor(id));
      expect(outcome.changed).toBe(true);
      expect(await readFile(file, 'utf8')).toBe(GOLDEN[id]);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect(outcome.backup?.existed).toBe(false);
      expect(await registry.state(id, entryFor(id))).toEqual({ state: 'current' });
      const undone = await registry.restore(id);
      expect(undone.deleted).toBe(true);
      await expect(stat(file)).rejects.toThrow(/ENOENT/);
    });
  }
});

describe('realistic files: only our entry changes, restore gives back the exact bytes', () => {
  const cases: Array<[ClientId, string]> = [
    ['vscode', 'vscode-mcp.jsonc'],
    ['claude-desktop', 'claude-desktop-crlf.json'],
    ['cursor', 'cursor-mcp.json'],
    ['zed', 'zed-settings.jsonc'],
    ['codex', 'codex-config.toml'],
    ['windsurf', 'cursor-mcp.json'],
    ['lm-studio', 'cursor-mcp.json'],
    ['gemini-cli', 'cursor-mcp.json'],
    ['claude-code', 'cursor-mcp.json'],
    ['cline', 'cursor-mcp.json'],
  ];
  for (const [id, name] of cases) {
    it(`${id} with ${name}`, async () => {
      const original = await fixture(name);
      const file = await put(id, original);
      await registry.connect(id, entryFor(id));
      const connected = await readFile(file);
      expect(connected.equals(original)).toBe(false);
      // Connecting again is a no-op: no write, no backup.
      expect((await registry.connect(id, entryFor(id))).changed).toBe(false);
      await registry.disconnect(id);
      expect((await readFile(file)).equals(original)).toBe(true);
      // Undo the disconnect, then the connect.
      await registry.restore(id);
      expect((await readFile(file)).equals(connected)).toBe(true);
      await registry.restore(id);
      expect((await readFile(file)).equals(original)).toBe(true);
      await expect(registry.restore(id)).rejects.toBeInstanceOf(NoBackupError);
      expect((await registry.backups(id)).map((b) => b.reason)).toEqual(['restore', 'restore', 'disconnect', 'connect']);
    });
  }

  it('a BOM and CRLF line endings are kept', async () => {
    const original = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), await fixture('claude-desktop-crlf.json')]);
    const file = await put('claude-desktop', original);
    await registry.connect('claude-desktop', STDIO);
    const after = await readFile(file);
    expect([...after.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(after.toString('utf8').replace(/\r\n/g, '')).not.toContain('\n');
    expect(after.toString('utf8')).toContain('clé-secrète-日本');
    await registry.restore('claude-desktop');
    expect((await readFile(file)).equals(original)).toBe(true);
  });

  it('an empty file gets our entry; restore gives back the empty file (not deleted)', async () => {
    const file = await put('cursor', '');
    await registry.connect('cursor', HTTP);
    expect(await readFile(file, 'utf8')).toBe(GOLDEN.cursor);
    await registry.restore('cursor');
    expect(await readFile(file, 'utf8')).toBe('');
  });

  it('the file mode is kept (minus group and others once it holds a token), and a symlinked file is written through the link', async () => {
    const target = join(root, 'dotfiles', 'mcp.json');
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, await fixture('cursor-mcp.json'));
    await chmod(target, 0o640);
    const link = await pathOf('cursor');
    await mkdir(dirname(link), { recursive: true });
    await symlink(target, link);
    await registry.connect('cursor', HTTP);
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readlink(link)).toBe(target);
    expect(await readFile(target, 'utf8')).toContain('"spillway"');
    // It holds Cursor's bearer token now: only its owner may read it.
    expect((await stat(target)).mode & 0o777).toBe(0o600);
    // A write that puts no token in keeps the mode the user gave the file.
    await chmod(target, 0o640);
    await registry.disconnect('cursor');
    expect((await stat(target)).mode & 0o777).toBe(0o640);
  });
});

describe('files Spillway must not write', () => {
  it('a malformed file: clear error with position, file untouched, no backup; list() reports it', async () => {
    const bad = '{\n  "mcpServers": {\n    "a": {"command": "x"},,\n  }\n}\n';
    const file = await put('cursor', bad);
    await expect(registry.connect('cursor', HTTP)).rejects.toThrow(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} at line 3, column`));
    await expect(registry.consent('cursor', HTTP)).rejects.toBeInstanceOf(ConfigParseError);
    await expect(registry.disconnect('cursor')).rejects.toBeInstanceOf(ConfigParseError);
    expect(await readFile(file, 'utf8')).toBe(bad);
    expect(await registry.backups('cursor')).toEqual([]);
    const status = (await registry.list()).find((c) => c.id === 'cursor')!;
    expect(status.installed).toBe(true);
    expect(status.error).toMatch(/line 3/);
  });

  it('a read-only file: clear error, nothing changed (checked on the mode bits, so also as root)', async () => {
    const original = await fixture('cursor-mcp.json');
    const file = await put('cursor', original);
    await chmod(file, 0o444);
    await expect(registry.connect('cursor', HTTP)).rejects.toThrow(/read-only/);
    await expect(registry.connect('cursor', HTTP)).rejects.toBeInstanceOf(ConfigWriteError);
    expect((await readFile(file)).equals(original)).toBe(true);
    expect(await registry.backups('cursor')).toEqual([]);
  });

  it('a folder path through a regular file: clear error, nothing created', async () => {
    await writeFile(join(home, '.cursor'), 'not a folder');
    await expect(registry.connect('cursor', HTTP)).rejects.toThrow(/a part of its folder path is a file/);
    expect(await readFile(join(home, '.cursor'), 'utf8')).toBe('not a folder');
    expect(await registry.backups('cursor')).toEqual([]);
  });

  it('an http entry for Claude Desktop is refused', async () => {
    await expect(registry.connect('claude-desktop', HTTP)).rejects.toBeInstanceOf(UnsupportedEntryError);
    await expect(registry.connect('nope' as ClientId, HTTP)).rejects.toThrow(/Unknown client "nope"/);
  });
});

describe('concurrent edits (Claude Code rewrites ~/.claude.json while running)', () => {
  it('the edit is re-applied on the fresh content: both changes survive, one backup of what was replaced', async () => {
    const file = await put('claude-code', '{\n  "numStartups": 1,\n  "mcpServers": {}\n}\n');
    const def = CLIENT_DEFINITIONS['claude-code'];
    let calls = 0;
    const outcome = await editConfigFile(
      file,
      (text) => {
        calls++;
        if (calls === 1) {
          // Claude Code writes between our read and our write.
          return (writeFileSyncForTest(file, '{\n  "numStartups": 2,\n  "mcpServers": {}\n}\n'), applyConnect(def, text, file, HTTP).text);
        }
        return applyConnect(def, text, file, HTTP).text;
      },
      { backups: { dir: join(root, 'bk') }, reason: 'connect' },
    );
    expect(outcome.retries).toBe(1);
    const doc = JSON.parse(await readFile(file, 'utf8'));
    expect(doc.numStartups).toBe(2);
    expect(doc.mcpServers.spillway.type).toBe('http');
    expect(outcome.backup?.sha256Before).toBeTruthy();
  });
});

describe('a client writing while the backup is made (a synced copy of a large file takes tens of ms)', () => {
  it('sees the write, applies the edit to it again, and backs up what it replaced: nothing of the client is lost', async () => {
    const file = await put('claude-code', '{\n  "numStartups": 1,\n  "mcpServers": {}\n}\n');
    const def = CLIENT_DEFINITIONS['claude-code'];
    let backupsStarted = 0;
    const outcome = await editConfigFile(file, (text) => applyConnect(def, text, file, HTTP).text, {
      backups: {
        dir: join(root, 'bk-during-backup'),
        // Called as the backup begins: Claude Code writes at that moment, the first time.
        now: () => {
          if (++backupsStarted === 1) writeFileSyncForTest(file, '{\n  "numStartups": 2,\n  "mcpServers": {}\n}\n');
          return new Date();
        },
      },
      reason: 'connect',
    });
    expect(outcome.retries).toBe(1);
    const doc = JSON.parse(await readFile(file, 'utf8'));
    expect(doc.numStartups).toBe(2);
    expect(doc.mcpServers.spillway.type).toBe('http');
    // One backup, of the bytes the client wrote (what the connect replaced); none left of the first try.
    const records = await listBackups(join(root, 'bk-during-backup'));
    expect(records).toHaveLength(1);
    expect(records[0]!.sha256Before).toBe(sha256(Buffer.from('{\n  "numStartups": 2,\n  "mcpServers": {}\n}\n')));
  });
});

// A synchronous write from inside the edit callback, like another process writing at that moment.
function writeFileSyncForTest(file: string, text: string): void {
  writeFileSync(file, text);
}

describe('detect, state, consent, import, replace', () => {
  it('list(): installed when the folder exists, entry state against the desired entries', async () => {
    await mkdir(join(home, '.gemini'), { recursive: true });
    await put('cursor', await fixture('cursor-mcp.json'));
    await registry.connect('cursor', HTTP);
    const moved: SpillwayEntry = { ...HTTP, url: 'http://127.0.0.1:5999/mcp' } as SpillwayEntry;
    const list = await registry.list((id) => (id === 'cursor' ? moved : entryFor(id)));
    expect(list.map((c) => c.id)).toEqual([...CLIENT_IDS]);
    const byId = Object.fromEntries(list.map((c) => [c.id, c]));
    expect(byId.cursor.installed && byId.cursor.configPresent).toBe(true);
    expect(byId.cursor.state).toEqual({ state: 'stale', differs: ['url'] });
    expect(byId['gemini-cli'].installed).toBe(true);
    expect(byId['gemini-cli'].configPresent).toBe(false);
    expect(byId['gemini-cli'].state).toEqual({ state: 'absent' });
    expect(byId.zed.installed).toBe(false);
    expect(byId['claude-desktop'].preferredKind).toBe('stdio');
    // Drift repair: connecting again updates the stale entry.
    await registry.connect('cursor', moved);
    expect(await registry.state('cursor', moved)).toEqual({ state: 'current' });
  });

  it('consent shows the exact entry text as it will be written, a redacted copy, and notes', async () => {
    const original = (await fixture('cursor-mcp.json')).toString('utf8');
    const file = await put('cursor', original);
    const preview = await registry.consent('cursor', HTTP);
    expect(preview.file).toBe(file);
    expect(preview.action).toBe('add');
    expect(preview.entryText).toBe(
      '"spillway": {\n      "url": "http://127.0.0.1:4810/mcp",\n      "headers": {\n        "Authorization": "Bearer tok_abc123"\n      }\n    }',
    );
    expect(preview.redactedEntryText).toContain('"Authorization": "Bearer <redacted>"');
    expect(preview.redactedEntryText).not.toContain('tok_abc123');
    expect(await readFile(file, 'utf8')).toBe(original); // consent writes nothing
    await registry.connect('cursor', HTTP);
    expect((await readFile(file, 'utf8')).includes(preview.entryText)).toBe(true);
    expect((await registry.consent('cursor', HTTP)).action).toBe('none');

    const desktop = await registry.consent('claude-desktop', STDIO);
    expect(desktop.notes[0]).toMatch(/does not exist yet; it will be created/);
    expect(desktop.restartRequired).toBe(true);
    expect(desktop.notes.join(' ')).toMatch(/Quit Claude Desktop/);
    const codex = await registry.consent('codex', STDIO);
    expect(codex.entryText).toBe(GOLDEN.codex.trimEnd());
  });

  it('import candidates are normalized, skip spillway, and dedupe; replaceWithSpillway is one undoable write', async () => {
    const original = await fixture('cursor-mcp.json');
    const file = await put('cursor', original);
    await registry.connect('cursor', HTTP);
    expect(await registry.importCandidates('cursor')).toEqual([
      { name: 'linear', kind: 'http', url: 'https://mcp.linear.app/sse', headers: {} },
      {
        name: 'postgres',
        kind: 'stdio',
        command: 'docker',
        args: ['run', '-i', '--rm', 'mcp/postgres', 'postgresql://host.docker.internal:5432/app'],
        env: { PGPASSWORD: 'hunter2' },
      },
      { name: 'notion', kind: 'http', url: 'https://mcp.notion.com/mcp', headers: { Authorization: 'Bearer ntn_123' } },
    ]);
    const before = await readFile(file);
    const preview = await registry.consent('cursor', HTTP, ['postgres', 'notion']);
    expect(preview.removes).toEqual(['postgres', 'notion']);
    const outcome = await registry.replaceWithSpillway('cursor', ['postgres', 'notion'], HTTP);
    expect(outcome.backup?.reason).toBe('replace');
    const doc = JSON.parse(await readFile(file, 'utf8'));
    expect(Object.keys(doc.mcpServers)).toEqual(['linear', 'spillway']);
    await expect(registry.replaceWithSpillway('cursor', ['ghost'], HTTP)).rejects.toThrow(/no server named "ghost"/);
    await registry.restore('cursor');
    expect((await readFile(file)).equals(before)).toBe(true);
    await registry.restore('cursor');
    expect((await readFile(file)).equals(original)).toBe(true);
  });

  it('Codex TOML: import reads url/http_headers and sub-table env; replace keeps comments', async () => {
    const original = await fixture('codex-config.toml');
    const file = await put('codex', original);
    const candidates = await registry.importCandidates('codex');
    expect(candidates.map((c) => c.name)).toEqual(['context7', 'figma', 'notes']);
    expect(candidates[1]).toEqual({ name: 'figma', kind: 'http', url: 'https://mcp.figma.com/mcp', headers: { 'X-Figma-Region': 'us-east-1' } });
    expect(candidates[2]).toMatchObject({ kind: 'stdio', env: { NOTES_TOKEN: 'n-123' } });
    const outcome = await registry.replaceWithSpillway('codex', ['notes'], STDIO);
    expect(outcome.rewritten).toBe(false);
    const text = await readFile(file, 'utf8');
    expect(text).toContain('# Codex configuration');
    expect(text).toContain('notifications = true # ring the bell');
    expect(text).not.toContain('[mcp_servers.notes');
    await registry.restore('codex');
    expect((await readFile(file)).equals(original)).toBe(true);
  });

  it('Cline: reads both files, writes the one that exists, the extension file first', async () => {
    const cli = await put('cline', '{\n  "mcpServers": {\n    "from-cli": {"command": "a"}\n  }\n}\n', 1);
    await registry.connect('cline', HTTP);
    expect(JSON.parse(await readFile(cli, 'utf8')).mcpServers.spillway.type).toBe('streamableHttp');
    const ext = await put('cline', '{\n  "mcpServers": {\n    "from-ext": {"url": "https://x.example/sse"}\n  }\n}\n', 0);
    expect((await registry.get('cline')).configPath).toBe(ext);
    expect((await registry.importCandidates('cline')).map((c) => [c.name, c.kind])).toEqual([
      ['from-ext', 'sse'],
      ['from-cli', 'stdio'],
    ]);
    await registry.connect('cline', HTTP);
    expect(JSON.parse(await readFile(ext, 'utf8')).mcpServers.spillway.url).toBe('http://127.0.0.1:4810/mcp');
  });

  it('Zed: legacy `command: {path, args, env}` servers are imported', async () => {
    await put('zed', await fixture('zed-settings.jsonc'));
    expect(await registry.importCandidates('zed')).toEqual([
      {
        name: 'brave-search',
        kind: 'stdio',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-brave-search'],
        env: { BRAVE_API_KEY: 'BSA-xyz' },
      },
    ]);
  });
});

describe('macOS rules on real files (platform injected)', () => {
  it('Claude Desktop lives under ~/Library/Application Support/Claude', async () => {
    const mac = createClientRegistry({ os: { home, platform: 'darwin', env: {} }, backupDir: join(root, 'bk') });
    const dir = join(home, 'Library', 'Application Support', 'Claude');
    await mkdir(dir, { recursive: true });
    const status = await mac.get('claude-desktop', STDIO);
    expect(status.installed).toBe(true);
    expect(status.configPath).toBe(join(dir, 'claude_desktop_config.json'));
    await mac.connect('claude-desktop', STDIO);
    expect(await readFile(join(dir, 'claude_desktop_config.json'), 'utf8')).toBe(GOLDEN['claude-desktop']);
  });
});
