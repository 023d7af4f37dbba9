/**
 * Restore when the app's file changed after Spillway wrote it (Claude Code rewrites ~/.claude.json on every
 * run; `claude mcp add` adds a server): only Spillway's own change is undone, with the same editors Connect
 * uses, and everything else in the file stays. A case that cannot be undone that way is refused, with the
 * file left as it is. When nobody touched the file since, Restore still gives back its exact bytes.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  CLIENT_DEFINITIONS,
  createClientRegistry,
  type ClientId,
  type ClientRegistry,
  type OsFacts,
  type SpillwayEntry,
} from '../../electron/core/clients/index.js';

const HTTP: SpillwayEntry = { kind: 'http', url: 'http://127.0.0.1:4810/mcp', headers: { Authorization: 'Bearer tok_abc1234567890' } };
const MOVED: SpillwayEntry = { ...HTTP, url: 'http://127.0.0.1:4999/mcp' };
const STDIO: SpillwayEntry = { kind: 'stdio', command: '/opt/Spillway/spillway', args: ['/opt/Spillway/spillway.js', 'bridge', '--data-dir', '/d'] };

let root: string;
let os: OsFacts;
let registry: ClientRegistry;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-restore-edits-'));
  os = { home: join(root, 'home'), platform: 'linux', env: { HOME: join(root, 'home') } };
  await mkdir(os.home);
  registry = createClientRegistry({ os, backupDir: join(root, 'backups') });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function put(id: ClientId, text: string): Promise<string> {
  const file = (await CLIENT_DEFINITIONS[id].locate(os, async () => [])).files[0];
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
  return file;
}

/** As Claude Code does: reads the file, changes it, writes it all again in its own layout. */
async function rewrite(file: string, change: (doc: { numStartups?: number; mcpServers: Record<string, unknown> }) => void): Promise<void> {
  const doc = JSON.parse(await readFile(file, 'utf8')) as { mcpServers: Record<string, unknown> };
  change(doc);
  await writeFile(file, JSON.stringify(doc, null, 2));
}

const doc = async (file: string) => JSON.parse(await readFile(file, 'utf8'));

describe('Restore after the app changed its file', () => {
  it('undoes Connect by removing only Spillway’s entry: a server added since stays (claude mcp add)', async () => {
    const file = await put('claude-code', '{"numStartups": 3}');
    await registry.connect('claude-code', HTTP);
    await rewrite(file, (d) => {
      d.numStartups = 4;
      d.mcpServers.mine = { type: 'stdio', command: 'npx', args: ['-y', 'my-server'], env: {} };
    });
    const edited = await readFile(file);
    const r = await registry.restore('claude-code');
    expect(r.changedSinceWrite).toBe(true);
    expect(r.deleted).toBe(false);
    expect(await doc(file)).toEqual({ numStartups: 4, mcpServers: { mine: { type: 'stdio', command: 'npx', args: ['-y', 'my-server'], env: {} } } });
    // The file as it was just before the restore is kept, as for every write.
    const newest = (await registry.backups('claude-code'))[0];
    expect(newest.reason).toBe('restore');
    expect(await readFile(join(root, 'backups', 'claude-code', `${newest.name}.bak`))).toEqual(edited);
  });

  it('undoes Connect on a file Spillway created: the file stays, without Spillway’s entry', async () => {
    const file = (await CLIENT_DEFINITIONS.cursor.locate(os, async () => [])).files[0];
    await registry.connect('cursor', HTTP);
    await rewrite(file, (d) => (d.mcpServers.mine = { command: 'mine' }));
    const r = await registry.restore('cursor');
    expect(r).toMatchObject({ changedSinceWrite: true, deleted: false });
    expect(await doc(file)).toEqual({ mcpServers: { mine: { command: 'mine' } } });
  });

  it('undoes Disconnect by putting Spillway’s entry back, keeping the rest', async () => {
    const file = await put('cursor', '{\n  // mine\n  "mcpServers": {\n    "a": {"command": "a"}\n  }\n}\n');
    await registry.connect('cursor', HTTP);
    await registry.disconnect('cursor');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace('"a": {"command": "a"}', '"a": {"command": "a"},\n    "b": {"command": "b"}'));
    const r = await registry.restore('cursor');
    expect(r.changedSinceWrite).toBe(true);
    const after = await readFile(file, 'utf8');
    expect(after).toContain('// mine');
    expect((await registry.readServers('cursor')).map((s) => s.name)).toEqual(['a', 'b', 'spillway']);
    expect((await registry.readServers('cursor')).find((s) => s.name === 'spillway')).toMatchObject({ url: HTTP.url, headers: HTTP.headers });
  });

  it('undoes an import with replace: the servers it moved come back, Spillway’s entry goes, a server added since stays', async () => {
    const file = await put('cursor', JSON.stringify({ mcpServers: { memory: { command: 'mem' }, other: { command: 'o' } } }, null, 2));
    await registry.replaceWithSpillway('cursor', ['memory'], HTTP);
    await rewrite(file, (d) => (d.mcpServers.later = { command: 'l' }));
    await registry.restore('cursor');
    expect((await doc(file)).mcpServers).toEqual({ other: { command: 'o' }, later: { command: 'l' }, memory: { command: 'mem' } });
  });

  it('goes back past Spillway’s own repair, and keeps an edit made between', async () => {
    const file = await put('cursor', '{"mcpServers": {}}');
    await registry.connect('cursor', HTTP);
    await rewrite(file, (d) => (d.mcpServers.mine = { command: 'm' }));
    await registry.connect('cursor', MOVED, 'repair');
    const r = await registry.restore('cursor');
    expect(r.changedSinceWrite).toBe(true);
    expect((await doc(file)).mcpServers).toEqual({ mine: { command: 'm' } });
  });

  it('Codex TOML: removes only Spillway’s table, a table and a comment added since stay', async () => {
    const file = await put('codex', '# mine\nmodel = "o3"\n');
    await registry.connect('codex', STDIO);
    await writeFile(file, (await readFile(file, 'utf8')) + '\n# added later\n[mcp_servers.later]\ncommand = "l"\n');
    await registry.restore('codex');
    const text = await readFile(file, 'utf8');
    expect(text).toContain('# added later');
    expect(text).toContain('[mcp_servers.later]');
    expect(text).not.toContain('spillway');
  });

  it('refuses, changing nothing, when a server it would put back was added again differently', async () => {
    const file = await put('cursor', JSON.stringify({ mcpServers: { memory: { command: 'mem' } } }));
    await registry.replaceWithSpillway('cursor', ['memory'], HTTP);
    await rewrite(file, (d) => (d.mcpServers.memory = { command: 'mem2' }));
    const before = await readFile(file);
    await expect(registry.restore('cursor')).rejects.toThrow(/server named "memory" again.*Nothing was changed/s);
    expect(await readFile(file)).toEqual(before);
  });

  it('refuses when the "spillway" server in the file is now the user’s own', async () => {
    const file = await put('cursor', '{"mcpServers": {}}');
    await registry.connect('cursor', HTTP);
    await rewrite(file, (d) => (d.mcpServers.spillway = { command: 'npx', args: ['-y', 'spillway-mcp'] }));
    const before = await readFile(file);
    await expect(registry.restore('cursor')).rejects.toThrow(/“spillway” that Spillway did not add.*Nothing was changed/s);
    expect(await readFile(file)).toEqual(before);
  });

  it('still gives back the exact bytes when nobody changed the file since', async () => {
    const original = '{\n  "mcpServers": { "a": {"command": "a"} } // mine\n}\n';
    const file = await put('cursor', original);
    await registry.connect('cursor', HTTP);
    await registry.connect('cursor', MOVED, 'repair');
    const r = await registry.restore('cursor');
    expect(r.changedSinceWrite).toBe(false);
    expect(await readFile(file, 'utf8')).toBe(original);
  });
});
