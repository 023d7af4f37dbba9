/**
 * Disconnect revokes the app's token; undoing that disconnect (Restore) brings the entry back, and the entry
 * must work again: the hub takes its token back, or rewrites the entry with the app's current token. The
 * start-up repair also repairs an entry that holds a token this data folder revoked. Restore says whether the
 * app must be restarted, and how; a repair passes on every app's hint (Windsurf's "press Refresh").
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
  it('gives the app back an entry the hub accepts, and says how the app picks it up', async () => {
    await ok('clients.connect', { id: 'cursor' });
    await ok('clients.disconnect', { id: 'cursor' });
    expect(await cursorEntry()).toBeUndefined();
    const r = await ok<Record<string, unknown>>('clients.restore', { id: 'cursor' });
    expect(r).toMatchObject({ file: cursorFile(), deleted: false, changedSinceWrite: false, restartRequired: false });
    expect(r.restartHint).toMatch(/Cursor picks up the change by itself/);
    expect(await initialize((await cursorEntry())!)).toBe(200);
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

  it('the start-up repair repairs an entry holding a token this data folder revoked', async () => {
    const connected = await readFile(cursorFile());
    await ok('clients.disconnect', { id: 'cursor' });
    // Put back by hand (an editor's undo), not through Spillway.
    await writeFile(cursorFile(), connected);
    expect(await initialize((await cursorEntry())!)).toBe(401);
    expect(await stateOf('cursor')).toBe('stale');
    await hub.repairClients();
    expect(await stateOf('cursor')).toBe('current');
    expect(await initialize((await cursorEntry())!)).toBe(200);
  });

  it('says Claude Code must be restarted after a restore', async () => {
    await writeFile(join(home, '.claude.json'), '{"numStartups": 3}');
    await ok('clients.connect', { id: 'claude-code' });
    const r = await ok<Record<string, unknown>>('clients.restore', { id: 'claude-code' });
    expect(r).toMatchObject({ restartRequired: true, restartHint: expect.stringMatching(/new Claude Code session/) });
  });
});

describe('the start-up repair', () => {
  it('passes on the hint of an app that needs no restart (Windsurf: press Refresh)', async () => {
    await ok('clients.connect', { id: 'windsurf' });
    const doc = JSON.parse(await readFile(windsurfFile(), 'utf8'));
    doc.mcpServers.spillway.serverUrl = 'http://127.0.0.1:1/mcp';
    await writeFile(windsurfFile(), JSON.stringify(doc, null, 2));
    const repaired = await ok<{ id: string; repaired: boolean; restartHint?: string }[]>('clients.repair', {});
    expect(repaired).toEqual([{ id: 'windsurf', repaired: true, restartHint: expect.stringMatching(/press Refresh/) }]);
  });
});
