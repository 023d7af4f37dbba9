/**
 * Disconnect revokes the app's token, and it stays revoked: undoing that disconnect (Restore) brings the entry
 * back with a fresh token (or the app's current one), never the revoked one. The start-up repair leaves an
 * entry holding a revoked token alone (an app that wrote it back from memory after Disconnect stays
 * disconnected); only Restore or Connect gives it a token again. Restore says whether the app must be
 * restarted, and how; a repair passes on every app's hint (Windsurf's "press Refresh").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startTestHub, type TestHub } from '../support/hub-harness.js';

let home: string;
let hub: TestHub;
const cursorFile = () => join(home, '.cursor', 'mcp.json');
const windsurfFile = () => join(home, '.codeium', 'windsurf', 'mcp_config.json');

type Entry = { url: string; headers: Record<string, string> };
const cursorEntry = async () => JSON.parse(await readFile(cursorFile(), 'utf8')).mcpServers.spillway as Entry | undefined;

/** The HTTP status the hub answers an MCP initialize with, sent with the entry's headers. */
async function initialize(entry: Entry): Promise<number> {
  const res = await fetch(entry.url, {
    method: 'POST',
    headers: { ...entry.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'cursor', version: '1' } },
    }),
  });
  await res.body?.cancel();
  return res.status;
}

async function ok<T>(method: string, body: unknown): Promise<T> {
  const r = await hub.api<T>(method, body);
  expect(r, `${method}: ${r.message}`).toMatchObject({ ok: true });
  return r.value as T;
}

const stateOf = async (id: string) => (await ok<{ id: string; state: string }[]>('clients.list', {})).find((c) => c.id === id)!.state;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'spillway-restore-token-'));
  await mkdir(join(home, '.cursor'), { recursive: true });
  await writeFile(cursorFile(), '{\n  "mcpServers": {}\n}\n');
  await mkdir(join(home, '.codeium', 'windsurf'), { recursive: true });
  await writeFile(windsurfFile(), '{\n  "mcpServers": {}\n}\n');
  hub = await startTestHub({ version: 1 }, { clientOs: { home, platform: 'linux', env: { HOME: home } }, port: await freePort() });
});
afterAll(async () => {
  await hub?.stop();
  await rm(home, { recursive: true, force: true });
});

describe('Restore after Disconnect', () => {
  it('gives the app back an entry with a fresh token: the revoked one stays revoked', async () => {
    await ok('clients.connect', { id: 'cursor' });
    const revoked = (await cursorEntry())!;
    await ok('clients.disconnect', { id: 'cursor' });
    expect(await cursorEntry()).toBeUndefined();
    expect(await initialize(revoked)).toBe(401);
    const r = await ok<Record<string, unknown>>('clients.restore', { id: 'cursor' });
    expect(r).toMatchObject({ file: cursorFile(), deleted: false, changedSinceWrite: false, restartRequired: false });
    expect(r.restartHint).toMatch(/Cursor picks up the change by itself/);
    const restored = (await cursorEntry())!;
    expect(restored.headers.Authorization).not.toBe(revoked.headers.Authorization);
    expect(await initialize(restored)).toBe(200);
    expect(await initialize(revoked)).toBe(401);
    expect(await stateOf('cursor')).toBe('current');
  });

  it('rewrites the restored entry with the app’s current token when it has a newer one', async () => {
    await ok('clients.disconnect', { id: 'cursor' });
    await ok('clients.connect', { id: 'cursor' });
    const current = (await cursorEntry())!.headers.Authorization;
    await ok('clients.restore', { id: 'cursor' }); // undoes the connect
    await ok('clients.restore', { id: 'cursor' }); // undoes the disconnect: the older token comes back...
    const entry = (await cursorEntry())!;
    expect(entry.headers.Authorization).toBe(current); // ...and is replaced by the one that works
    expect(await initialize(entry)).toBe(200);
    expect(await stateOf('cursor')).toBe('current');
  });

  it('gives a fresh token to an entry the app wrote back after Disconnect', async () => {
    const connected = await readFile(cursorFile());
    await ok('clients.disconnect', { id: 'cursor' });
    // The app writes its file again from memory, with the entry Disconnect removed (Claude Code does).
    await writeFile(cursorFile(), connected);
    expect(await initialize((await cursorEntry())!)).toBe(401);
    await ok('clients.restore', { id: 'cursor' }); // undoes the disconnect
    const entry = (await cursorEntry())!;
    expect(entry.headers.Authorization).not.toBe(JSON.parse(connected.toString()).mcpServers.spillway.headers.Authorization);
    expect(await initialize(entry)).toBe(200);
    expect(await stateOf('cursor')).toBe('current');
  });
  it('says Claude Code must be restarted after a restore', async () => {
    await writeFile(join(home, '.claude.json'), '{"numStartups": 3}');
    await ok('clients.connect', { id: 'claude-code' });
    const r = await ok<Record<string, unknown>>('clients.restore', { id: 'claude-code' });
    expect(r).toMatchObject({ restartRequired: true, restartHint: expect.stringMatching(/new Claude Code session/) });
  });
});

describe('the start-up repair', () => {
  it('leaves alone an entry holding a token Disconnect revoked: only Connect gives it a token again', async () => {
    await ok('clients.connect', { id: 'cursor' });
    const connected = await readFile(cursorFile());
    await ok('clients.disconnect', { id: 'cursor' });
    await writeFile(cursorFile(), connected); // the app wrote it back from memory
    await hub.repairClients();
    expect(await ok('clients.repair', {})).toEqual([]);
    expect(await readFile(cursorFile())).toEqual(connected);
    expect(await initialize((await cursorEntry())!)).toBe(401);
    expect(await stateOf('cursor')).toBe('stale');
    await ok('clients.connect', { id: 'cursor' });
    expect(await initialize((await cursorEntry())!)).toBe(200);
    expect(await stateOf('cursor')).toBe('current');
  });

  it('passes on the hint of an app that needs no restart (Windsurf: press Refresh)', async () => {
    await ok('clients.connect', { id: 'windsurf' });
    const doc = JSON.parse(await readFile(windsurfFile(), 'utf8'));
    doc.mcpServers.spillway.serverUrl = 'http://127.0.0.1:1/mcp';
    await writeFile(windsurfFile(), JSON.stringify(doc, null, 2));
    const repaired = await ok<{ id: string; repaired: boolean; restartHint?: string }[]>('clients.repair', {});
    expect(repaired).toEqual([{ id: 'windsurf', repaired: true, restartHint: expect.stringMatching(/press Refresh/) }]);
  });
});

describe('Restore and the "spillway" entry in Gemini CLI’s file now', () => {
  const geminiFile = () => join(home, '.gemini', 'settings.json');
  const servers = async () => JSON.parse(await readFile(geminiFile(), 'utf8')).mcpServers as Record<string, Record<string, unknown>>;
  const edit = async (change: (s: Record<string, Record<string, unknown>>) => void) => {
    const s = await servers();
    change(s);
    await writeFile(geminiFile(), JSON.stringify({ mcpServers: s }, null, 2));
  };

  it('takes back this Spillway’s entry the app rewrote in its own way (it holds this folder’s token)', async () => {
    await mkdir(join(home, '.gemini'), { recursive: true });
    await writeFile(geminiFile(), '{"mcpServers": {}}');
    await ok('clients.connect', { id: 'gemini-cli' });
    await edit((s) => (s.spillway.timeout = 30000));
    await ok('clients.restore', { id: 'gemini-cli' });
    expect(await servers()).toEqual({});
  });

  it('leaves another Spillway’s entry written after Disconnect, and says why', async () => {
    await ok('clients.connect', { id: 'gemini-cli' });
    await ok('clients.disconnect', { id: 'gemini-cli' });
    const other = { httpUrl: 'http://127.0.0.1:5999/mcp', headers: { Authorization: 'Bearer other_spillway_token_xyz' } };
    await edit((s) => (s.spillway = other));
    const r = await hub.api('clients.restore', { id: 'gemini-cli' });
    expect(r).toMatchObject({ ok: false, message: expect.stringMatching(/another Spillway.*Nothing was changed/s) });
    expect((await servers()).spillway).toEqual(other);
  });
});
