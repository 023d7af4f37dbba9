/**
 * One-click client configuration through the control API of a real hub, on a temp HOME: list, preview,
 * connect (an HTTP client gets a token of its own that works; Claude Desktop gets the bridge), "last
 * seen", disconnect (the token is revoked), import with replace, restore to the exact bytes, drift repair.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SECRET_REF } from '../../shared/config.js';
import { EVERYTHING, NODE, fixture, freePort, nodeServer, startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
let home: string;
const cursorFile = () => join(home, '.cursor', 'mcp.json');
const claudeFile = () => join(home, '.config', 'Claude', 'claude_desktop_config.json');
const CURSOR_ORIGINAL =
  '{\n  "mcpServers": {\n    "github": { "url": "https://api.example.com/mcp", "headers": { "Authorization": "Bearer gh-secret" } }\n  }\n}\n';

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'spillway-home-'));
  await mkdir(join(home, '.cursor'), { recursive: true });
  await writeFile(cursorFile(), CURSOR_ORIGINAL);
  await mkdir(join(home, '.config', 'Claude'), { recursive: true });
  await writeFile(
    claudeFile(),
    JSON.stringify({ mcpServers: { everything: { command: NODE, args: [EVERYTHING, 'stdio'] } }, theme: 'dark' }, null, 2),
  );
  hub = await startTestHub(
    { mcpServers: { fx: nodeServer(fixture('fixture-server.mjs')) } },
    // A fixed port: an HTTP entry is written only for a port that lasts (issue 13, item 5).
    { clientOs: { home, platform: 'linux', env: { HOME: home } }, port: await freePort() },
  );
  await hub.waitForStatus('fx', 'ready');
});

afterAll(async () => {
  await hub?.stop();
  await rm(home, { recursive: true, force: true });
});

type Info = { id: string; state: string; installed: boolean; kind: string; servers: number; lastSeen?: string };

describe('clients through the control API', () => {
  it('lists every client with what it has', async () => {
    const list = (await hub.api<Info[]>('clients.list')).value!;
    expect(list).toHaveLength(10);
    expect(list.find((c) => c.id === 'cursor')).toMatchObject({ installed: true, state: 'absent', kind: 'http', servers: 1 });
    expect(list.find((c) => c.id === 'claude-desktop')).toMatchObject({ installed: true, state: 'absent', kind: 'stdio', servers: 1 });
    expect(list.find((c) => c.id === 'zed')).toMatchObject({ installed: false });
  });

  it('shows the exact entry before writing, with the token masked', async () => {
    const p = (await hub.api<{ action: string; entryText: string; file: string }>('clients.preview', { id: 'cursor' })).value!;
    expect(p.action).toBe('add');
    expect(p.file).toBe(cursorFile());
    expect(p.entryText).toContain(hub.url);
    expect(p.entryText).not.toMatch(/Bearer [A-Za-z0-9_-]{20,}/);
    expect(p.entryText).toContain('Bearer <redacted>');
    expect(await readFile(cursorFile(), 'utf8')).toBe(CURSOR_ORIGINAL);
  });

  it('connects Cursor with a token of its own that the endpoint accepts, and records when it was seen', async () => {
    const r = (await hub.api<{ changed: boolean; backup?: string }>('clients.connect', { id: 'cursor' })).value!;
    expect(r.changed).toBe(true);
    const written = JSON.parse(await readFile(cursorFile(), 'utf8'));
    expect(written.mcpServers.github.headers.Authorization).toBe('Bearer gh-secret');
    const entry = written.mcpServers.spillway;
    expect(entry.url).toBe(hub.url);
    const token = entry.headers.Authorization.replace('Bearer ', '');
    expect(token).not.toBe(hub.token);
    const client = new Client({ name: 'cursor', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers: entry.headers } }));
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('fx__add');
    await client.close();
    const info = (await hub.api<Info[]>('clients.list')).value!.find((c) => c.id === 'cursor')!;
    expect(info.state).toBe('current');
    expect(info.lastSeen).toBeTruthy();
  });

  it('disconnects Cursor: the entry goes, the file is as before, the token no longer works', async () => {
    const entry = JSON.parse(await readFile(cursorFile(), 'utf8')).mcpServers.spillway;
    await hub.api('clients.disconnect', { id: 'cursor' });
    expect(await readFile(cursorFile(), 'utf8')).toBe(CURSOR_ORIGINAL);
    const res = await fetch(entry.url, { method: 'POST', headers: { ...entry.headers, 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
  });

  it("moves an imported server's header value into the secret store: config.json holds a reference", async () => {
    const r = (await hub.api<{ imported: string[] }>('clients.import', { id: 'cursor', names: ['github'], replace: false })).value!;
    expect(r.imported).toEqual(['github']);
    const saved = await readFile(join(hub.dir, 'config.json'), 'utf8');
    expect(saved).not.toContain('gh-secret');
    expect(JSON.parse(saved).servers.github.headers).toEqual({ Authorization: SECRET_REF });
    expect(await hub.hub.secretStore.get('github', 'header:Authorization')).toBe('Bearer gh-secret');
    await hub.api('upstreams.remove', { id: 'github' });
    expect(await hub.hub.secretStore.get('github', 'header:Authorization')).toBeUndefined();
  });

  it('imports Claude Desktop servers and replaces them by the one bridge entry; restore gives back the exact bytes', async () => {
    const before = await readFile(claudeFile(), 'utf8');
    const candidates = (await hub.api<{ name: string; alreadyImported: boolean }[]>('clients.importCandidates', { id: 'claude-desktop' })).value!;
    expect(candidates).toEqual([expect.objectContaining({ name: 'everything', alreadyImported: false })]);
    const r = (
      await hub.api<{ imported: string[]; change?: { file: string } }>('clients.import', {
        id: 'claude-desktop',
        names: ['everything'],
        replace: true,
      })
    ).value!;
    expect(r.imported).toEqual(['everything']);
    await hub.waitForStatus('everything', 'ready');
    const written = JSON.parse(await readFile(claudeFile(), 'utf8'));
    expect(Object.keys(written.mcpServers)).toEqual(['spillway']);
    expect(written.theme).toBe('dark');
    expect(written.mcpServers.spillway.args).toEqual(expect.arrayContaining(['bridge', '--client', 'claude-desktop']));
    // A second import finds it already there.
    const again = (await hub.api<{ name: string; alreadyImported: boolean }[]>('clients.importCandidates', { id: 'claude-desktop' })).value!;
    expect(again).toEqual([]);
    await hub.api('clients.restore', { id: 'claude-desktop' });
    expect(await readFile(claudeFile(), 'utf8')).toBe(before);
  });

  it('repairs a stale entry (wrong port) with a backup', async () => {
    await hub.api('clients.connect', { id: 'cursor' });
    const file = JSON.parse(await readFile(cursorFile(), 'utf8'));
    file.mcpServers.spillway.url = 'http://127.0.0.1:1/mcp';
    await writeFile(cursorFile(), JSON.stringify(file, null, 2));
    expect((await hub.api<Info[]>('clients.list')).value!.find((c) => c.id === 'cursor')!.state).toBe('stale');
    const repaired = (await hub.api<{ id: string; repaired: boolean }[]>('clients.repair')).value!;
    expect(repaired).toEqual([expect.objectContaining({ id: 'cursor', repaired: true })]);
    expect(JSON.parse(await readFile(cursorFile(), 'utf8')).mcpServers.spillway.url).toBe(hub.url);
  });

  it('refuses a malformed client file without touching it', async () => {
    await mkdir(join(home, '.codeium', 'windsurf'), { recursive: true });
    const bad = '{ "mcpServers": { ';
    await writeFile(join(home, '.codeium', 'windsurf', 'mcp_config.json'), bad);
    const r = await hub.api('clients.connect', { id: 'windsurf' });
    expect(r).toMatchObject({ ok: false, code: 'conflict' });
    expect(r.message).toContain('mcp_config.json');
    expect(await readFile(join(home, '.codeium', 'windsurf', 'mcp_config.json'), 'utf8')).toBe(bad);
  });

  it('refuses to replace or remove a "spillway" server the user made themselves, and says what to do', async () => {
    const file = join(home, '.gemini', 'settings.json');
    const mine =
      '{\n  "mcpServers": {\n    "spillway": { "command": "npx", "args": ["-y", "spillway-mcp"], "env": { "SPILLWAY_API_KEY": "user-secret-123" } }\n  }\n}\n';
    await mkdir(join(home, '.gemini'), { recursive: true });
    await writeFile(file, mine);
    for (const method of ['clients.preview', 'clients.connect'] as const) {
      expect(await hub.api(method, { id: 'gemini-cli' })).toEqual({
        ok: false,
        code: 'conflict',
        message: `Gemini CLI already has a server named “spillway” that Spillway did not add (in ${file}). Rename or remove it in Gemini CLI's settings, then connect again.`,
      });
    }
    expect(await hub.api('clients.disconnect', { id: 'gemini-cli' })).toMatchObject({
      ok: false,
      code: 'conflict',
      message: expect.stringMatching(/not added by Spillway/),
    });
    expect(await readFile(file, 'utf8')).toBe(mine);
    // Listed as taken (the window offers neither Connect nor Disconnect), not as a Spillway entry to update.
    const listed = (await hub.api<(Info & { differs?: string[] })[]>('clients.list')).value!.find((c) => c.id === 'gemini-cli')!;
    expect(listed.state).toBe('taken');
    expect(listed.differs).toBeUndefined();
  });

  it('refuses an import that would replace a "spillway" server the user made, before adding any of its servers', async () => {
    const file = join(home, '.codeium', 'windsurf', 'mcp_config.json');
    const mine = JSON.stringify(
      { mcpServers: { spillway: { command: 'npx', args: ['-y', 'spillway-mcp'] }, fetchy: { command: NODE, args: ['x.js'] } } },
      null,
      2,
    );
    await mkdir(join(home, '.codeium', 'windsurf'), { recursive: true });
    await writeFile(file, mine);
    const before = (await hub.api<{ id: string }[]>('upstreams.list')).value!.map((u) => u.id);
    expect(await hub.api('clients.import', { id: 'windsurf', names: ['fetchy'], replace: true })).toMatchObject({ ok: false, code: 'conflict' });
    expect((await hub.api<{ id: string }[]>('upstreams.list')).value!.map((u) => u.id)).toEqual(before);
    expect(await readFile(file, 'utf8')).toBe(mine);
  });
});
