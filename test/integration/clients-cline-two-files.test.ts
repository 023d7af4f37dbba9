/**
 * Cline keeps its servers in two files, and Disconnect takes Spillway's entry out of each that has one. Both
 * writes are one action (audit s17, connect item 4): Restore used to undo only the newest, leaving the other
 * file without its entry and nothing saying so, and Disconnect's answer named only the first file.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort, startTestHub, type TestHub } from '../support/hub-harness.js';

let home: string;
let hub: TestHub;
let port: number;
let A: string;
let B: string;
const extensionFile = () => join(home, '.config', 'Code', 'User', 'globalStorage', 'saoudrizwan.claude-dev', 'settings', 'cline_mcp_settings.json');
const cliFile = () => join(home, '.cline', 'data', 'settings', 'cline_mcp_settings.json');
const put = async (file: string, text: string) => {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
};

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'spillway-cline-two-'));
  port = await freePort();
  hub = await startTestHub({ version: 1 }, { clientOs: { home, platform: 'linux', env: { HOME: home } }, port });
});
afterAll(async () => {
  await hub?.stop();
  await rm(home, { recursive: true, force: true });
});
beforeEach(async () => {
  const entry = { type: 'streamableHttp', url: `http://127.0.0.1:${port}/mcp`, headers: { Authorization: 'Bearer xxxxxxxxxxxxxxxxxxxxxxxx' } };
  A = JSON.stringify({ mcpServers: { a: { command: 'x' }, spillway: entry } }, null, 2);
  B = JSON.stringify({ mcpServers: { b: { command: 'y' }, spillway: entry } }, null, 2);
  await put(extensionFile(), A);
  await put(cliFile(), B);
});

describe('Cline: one Disconnect, two files', () => {
  it('Restore gives back both files Disconnect changed', async () => {
    expect((await hub.api('clients.disconnect', { id: 'cline' })).ok).toBe(true);
    expect(await readFile(extensionFile(), 'utf8')).not.toContain('spillway');
    expect(await readFile(cliFile(), 'utf8')).not.toContain('spillway');
    expect((await hub.api('clients.restore', { id: 'cline' })).ok).toBe(true);
    expect(await readFile(cliFile(), 'utf8')).toBe(B);
    // It stayed without the entry: a second Restore was needed, and nothing said so.
    expect(await readFile(extensionFile(), 'utf8')).toBe(A);
  });

  it("Disconnect's and Restore's answers name every file", async () => {
    const service = await hub.clients();
    const off = await service.disconnect('cline');
    expect(off).toMatchObject({ changed: true, file: extensionFile(), files: [extensionFile(), cliFile()] });
    const back = await service.restore('cline');
    expect(back.files?.slice().sort()).toEqual([extensionFile(), cliFile()].sort());
  });
});
