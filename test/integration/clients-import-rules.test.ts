/**
 * Which of an app's servers Spillway takes over, through a real hub's control API on a temp HOME:
 * a server that uses a variable only the app fills in (VS Code's `${workspaceFolder}`, `${input:…}`)
 * stays in the app, listed with the reason, and an import of it is refused with the file untouched;
 * two copies of one package with different env are two servers (each app keeps its own account), and
 * the same copy is recognised although the hub keeps its values in the secret store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SECRET_REF } from '../../shared/config.js';
import { MEMORY, NODE, fixture, freePort, startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
let home: string;
const vscodeFile = () => join(home, '.config', 'Code', 'User', 'mcp.json');
const claudeCodeFile = () => join(home, '.claude.json');
const cursorFile = () => join(home, '.cursor', 'mcp.json');
const windsurfFile = () => join(home, '.codeium', 'windsurf', 'mcp_config.json');
const FIXTURE = fixture('fixture-server.mjs');

const VSCODE = JSON.stringify(
  {
    servers: {
      files: { type: 'stdio', command: NODE, args: [FIXTURE, '${workspaceFolder}'] },
      memory: { type: 'stdio', command: NODE, args: [MEMORY], env: { MEMORY_FILE_PATH: '${input:notes-dir}/memory.json' } },
      plain: { type: 'stdio', command: NODE, args: [FIXTURE, 'plain'] },
    },
    inputs: [{ id: 'notes-dir', type: 'promptString', description: 'Notes folder' }],
  },
  null,
  2,
);

/** The same package with an account (env) of its own in each app. */
const withAccount = (account: string) =>
  JSON.stringify({ mcpServers: { fx: { command: NODE, args: [FIXTURE], env: { FX_ACCOUNT: account } } } }, null, 2);

type Candidate = { name: string; alreadyImported: boolean; sameAs: string; clientOnly?: string };

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'spillway-import-rules-'));
  await mkdir(join(home, '.config', 'Code', 'User'), { recursive: true });
  await writeFile(vscodeFile(), VSCODE);
  await writeFile(claudeCodeFile(), withAccount('alice'));
  await mkdir(join(home, '.cursor'), { recursive: true });
  await writeFile(cursorFile(), withAccount('bob'));
  await mkdir(join(home, '.codeium', 'windsurf'), { recursive: true });
  await writeFile(windsurfFile(), withAccount('alice'));
  hub = await startTestHub({ version: 1 }, { clientOs: { home, platform: 'linux', env: { HOME: home } }, port: await freePort() });
});

afterAll(async () => {
  await hub?.stop();
  await rm(home, { recursive: true, force: true });
});

describe("an app's own variables", () => {
  it('lists the servers that use them with the reason in plain words', async () => {
    const list = (await hub.api<Candidate[]>('clients.importCandidates', { id: 'vscode' })).value!;
    expect(list.map((c) => [c.name, c.clientOnly])).toEqual([
      ['files', 'uses ${workspaceFolder}, which only VS Code can fill in; it stays in VS Code'],
      ['memory', 'uses ${input:notes-dir}, which only VS Code can fill in; it stays in VS Code'],
      ['plain', undefined],
    ]);
  });

  it('refuses to import or move them, and changes nothing', async () => {
    const r = await hub.api('clients.import', { id: 'vscode', names: ['files', 'memory', 'plain'], replace: true });
    expect(r).toMatchObject({ ok: false, code: 'invalid', field: 'names' });
    expect(r.message).toContain('files uses ${workspaceFolder}, which only VS Code can fill in; it stays in VS Code');
    expect(r.message).toContain('Nothing was changed');
    expect(await readFile(vscodeFile(), 'utf8')).toBe(VSCODE);
    expect((await hub.api<unknown[]>('upstreams.list')).value).toEqual([]);
  });

  it('moves the others and leaves those in the app’s file as written', async () => {
    const r = (await hub.api<{ imported: string[] }>('clients.import', { id: 'vscode', names: ['plain'], replace: true })).value!;
    expect(r.imported).toEqual(['plain']);
    const servers = JSON.parse(await readFile(vscodeFile(), 'utf8')).servers;
    expect(Object.keys(servers).sort()).toEqual(['files', 'memory', 'spillway']);
    expect(servers.files.args).toEqual([FIXTURE, '${workspaceFolder}']);
    expect(servers.memory.env).toEqual({ MEMORY_FILE_PATH: '${input:notes-dir}/memory.json' });
  });
});

describe('the same package with different env', () => {
  it('is two servers: each app keeps its own account when moved into Spillway', async () => {
    const claude = (await hub.api<{ imported: string[] }>('clients.import', { id: 'claude-code', names: ['fx'], replace: true })).value!;
    expect(claude.imported).toEqual(['fx']);
    // Kept in the secret store: config.json holds a reference.
    expect(JSON.parse(await readFile(join(hub.dir, 'config.json'), 'utf8')).servers.fx.env).toEqual({ FX_ACCOUNT: SECRET_REF });

    const [cursorFx] = (await hub.api<Candidate[]>('clients.importCandidates', { id: 'cursor' })).value!;
    const [windsurfFx] = (await hub.api<Candidate[]>('clients.importCandidates', { id: 'windsurf' })).value!;
    expect(cursorFx.alreadyImported).toBe(false);
    // Windsurf's copy has the same value as the one in the store: recognised as the same server.
    expect(windsurfFx.alreadyImported).toBe(true);
    expect(windsurfFx.sameAs).not.toBe(cursorFx.sameAs);

    const cursor = (await hub.api<{ imported: string[]; skipped: string[] }>('clients.import', { id: 'cursor', names: ['fx'], replace: true }))
      .value!;
    expect(cursor).toMatchObject({ imported: [expect.stringMatching(/^fx/)], skipped: [] });
    const [second] = cursor.imported;
    expect(second).not.toBe('fx');
    expect(await hub.hub.secretStore.get('fx', 'env:FX_ACCOUNT')).toBe('alice');
    expect(await hub.hub.secretStore.get(second, 'env:FX_ACCOUNT')).toBe('bob');

    const windsurf = (await hub.api<{ imported: string[]; skipped: string[] }>('clients.import', { id: 'windsurf', names: ['fx'], replace: false }))
      .value!;
    expect(windsurf).toEqual({ imported: [], skipped: ['fx'] });
  });
});
