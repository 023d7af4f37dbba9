/**
 * What the Clients view is shown of a client's file, through the control API of a real hub on a temp HOME:
 * Disconnect's consent shows Spillway's entry as the file has it (a stale one keeps its old port, a hub on
 * port 0 can still show it, and no token is made), and the import list masks other servers' credentials
 * while the import itself still carries the real values into the hub.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SECRET_REF } from '../../shared/config.js';
import { NODE, fixture, freePort, startTestHub, type TestHub } from '../support/hub-harness.js';

const OLD_TOKEN = 'sp-old-token-abcdef123456';
/** A Spillway entry written by an earlier run on port 4810, with the token that run made. */
const STALE_CURSOR = `{
  "mcpServers": {
    "spillway": {
      "url": "http://127.0.0.1:4810/mcp",
      "headers": { "Authorization": "Bearer ${OLD_TOKEN}" }
    }
  }
}
`;
const DB_URL = 'postgresql://alice:s3cretPassw0rd@db.example.com:5432/app';
const API_KEY = 'sk-live-abcdef123456';

interface Home {
  dir: string;
  cursorFile: string;
  claudeFile: string;
}

async function makeHome(): Promise<Home> {
  const dir = await mkdtemp(join(tmpdir(), 'spillway-shown-'));
  const home = { dir, cursorFile: join(dir, '.cursor', 'mcp.json'), claudeFile: join(dir, '.config', 'Claude', 'claude_desktop_config.json') };
  await mkdir(join(dir, '.cursor'), { recursive: true });
  await writeFile(home.cursorFile, STALE_CURSOR);
  await mkdir(join(dir, '.config', 'Claude'), { recursive: true });
  await writeFile(
    home.claudeFile,
    JSON.stringify(
      {
        mcpServers: {
          postgres: { command: NODE, args: [fixture('fixture-server.mjs'), DB_URL] },
          hosted: { url: `https://mcp.example.com/mcp?api_key=${API_KEY}` },
        },
      },
      null,
      2,
    ),
  );
  return home;
}

const clientOs = (home: Home) => ({ home: home.dir, platform: 'linux' as const, env: { HOME: home.dir } });

async function tokensFile(hub: TestHub): Promise<Record<string, string>> {
  try {
    return JSON.parse(await readFile(join(hub.dir, 'client-tokens.json'), 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}

type DisconnectPreview = { file: string; entryText?: string; restartRequired: boolean };

describe('the Disconnect consent shows the entry the file has', () => {
  let home: Home;
  let fixed: TestHub;
  let ephemeral: TestHub;
  beforeAll(async () => {
    home = await makeHome();
    fixed = await startTestHub({ version: 1 }, { clientOs: clientOs(home), port: await freePort() });
    ephemeral = await startTestHub({ version: 1 }, { clientOs: clientOs(home), port: 0 });
  });
  afterAll(async () => {
    await fixed?.stop();
    await ephemeral?.stop();
    await rm(home.dir, { recursive: true, force: true });
  });

  it('a stale entry shows its old port, its token masked, and no token is made', async () => {
    expect((await fixed.api<{ id: string; state: string }[]>('clients.list')).value!.find((c) => c.id === 'cursor')!.state).toBe('stale');
    const r = await fixed.api<DisconnectPreview>('clients.previewDisconnect', { id: 'cursor' });
    expect(r.ok).toBe(true);
    expect(r.value!.file).toBe(home.cursorFile);
    expect(r.value!.entryText).toContain('http://127.0.0.1:4810/mcp');
    expect(r.value!.entryText).not.toContain(fixed.url);
    expect(r.value!.entryText).not.toContain(OLD_TOKEN);
    expect(r.value!.entryText).toContain('Bearer <redacted>');
    expect(await tokensFile(fixed)).toEqual({});
    expect(await readFile(home.cursorFile, 'utf8')).toBe(STALE_CURSOR);
  });

  it('a hub on port 0 (where Connect is refused) shows it too, and then removes it', async () => {
    expect(await ephemeral.api('clients.preview', { id: 'cursor' })).toMatchObject({ ok: false, code: 'unavailable' });
    const r = await ephemeral.api<DisconnectPreview>('clients.previewDisconnect', { id: 'cursor' });
    expect(r.ok).toBe(true);
    expect(r.value!.entryText).toContain('http://127.0.0.1:4810/mcp');
    expect(r.value!.entryText).not.toContain(OLD_TOKEN);
    expect(await tokensFile(ephemeral)).toEqual({});
    expect((await ephemeral.api<{ changed: boolean }>('clients.disconnect', { id: 'cursor' })).value!.changed).toBe(true);
    expect(JSON.parse(await readFile(home.cursorFile, 'utf8')).mcpServers).toEqual({});
    // A "spillway" server the user made is not Spillway's to remove: the consent says so before anything.
    const windsurf = join(home.dir, '.codeium', 'windsurf', 'mcp_config.json');
    await mkdir(join(home.dir, '.codeium', 'windsurf'), { recursive: true });
    await writeFile(windsurf, JSON.stringify({ mcpServers: { spillway: { command: 'npx', args: ['-y', 'spillway-mcp'] } } }));
    expect(await ephemeral.api('clients.previewDisconnect', { id: 'windsurf' })).toMatchObject({
      ok: false,
      code: 'conflict',
      message: expect.stringContaining('was not added by Spillway'),
    });
    // Nothing left to remove: the answer says so instead of showing an entry.
    expect((await ephemeral.api<DisconnectPreview>('clients.previewDisconnect', { id: 'cursor' })).value).toEqual({
      file: home.cursorFile,
      restartRequired: false,
    });
  });
});

describe("the import list masks other servers' credentials; the import keeps them", () => {
  let home: Home;
  let hub: TestHub;
  beforeAll(async () => {
    home = await makeHome();
    hub = await startTestHub({ version: 1 }, { clientOs: clientOs(home) });
  });
  afterAll(async () => {
    await hub?.stop();
    await rm(home.dir, { recursive: true, force: true });
  });

  it('lists the servers with the password and the API key masked', async () => {
    const r = await hub.api<{ name: string; args?: string[]; url?: string }[]>('clients.importCandidates', { id: 'claude-desktop' });
    expect(r.ok).toBe(true);
    const answer = JSON.stringify(r.value);
    expect(answer).not.toContain('s3cretPassw0rd');
    expect(answer).not.toContain(API_KEY);
    expect(r.value!.find((c) => c.name === 'postgres')!.args).toEqual([
      fixture('fixture-server.mjs'),
      'postgresql://alice:***@db.example.com:5432/app',
    ]);
    expect(r.value!.find((c) => c.name === 'hosted')!.url).toBe('https://mcp.example.com/mcp?api_key=***');
  });

  it('imports the real values, not the masks', async () => {
    const r = await hub.api<{ imported: string[] }>('clients.import', { id: 'claude-desktop', names: ['postgres', 'hosted'] });
    expect(r.value!.imported.sort()).toEqual(['hosted', 'postgres']);
    const saved = JSON.parse(await readFile(join(hub.dir, 'config.json'), 'utf8')) as {
      servers: Record<string, { args?: string[]; url?: string }>;
    };
    // The password in the address is a secret too: the store holds the word, config.json a placeholder.
    expect(saved.servers.postgres.args).toEqual([fixture('fixture-server.mjs'), '${SPILLWAY_SECRET_ARG_1}']);
    expect(await hub.hub.secretStore.get('postgres', 'env:SPILLWAY_SECRET_ARG_1')).toBe(DB_URL);
    expect(saved.servers.hosted.url).toBe(`https://mcp.example.com/mcp?api_key=${SECRET_REF}`);
    expect(await hub.hub.secretStore.get('hosted', 'url:api_key')).toBe(API_KEY);
    // Listed again: already imported, still masked.
    const again = await hub.api<{ name: string; alreadyImported: boolean }[]>('clients.importCandidates', { id: 'claude-desktop' });
    expect(again.value!.map((c) => [c.name, c.alreadyImported])).toEqual([
      ['postgres', true],
      ['hosted', true],
    ]);
    expect(JSON.stringify(again.value)).not.toMatch(/s3cretPassw0rd|sk-live/);
    // Imported again, neither is added a second time.
    const twice = await hub.api<{ imported: string[]; skipped: string[] }>('clients.import', { id: 'claude-desktop', names: ['postgres', 'hosted'] });
    expect(twice.value).toEqual({ imported: [], skipped: ['postgres', 'hosted'] });
  });
});
