/**
 * A write to an app's config file that was cut short (Spillway killed, a power cut) leaves its hidden temp
 * copy beside the file, `.<name>.spillway-<hex>.tmp`, holding the new text: a Spillway token and the app's
 * own server secrets. The next write of that file (connect, disconnect) and the start-up repair remove
 * such leftovers; one young enough to be another process's write under way is left alone.
 */
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freePort, startTestHub, type TestHub } from '../support/hub-harness.js';

let home: string;
let hub: TestHub;
const cursorDir = () => join(home, '.cursor');
const geminiDir = () => join(home, '.gemini');
const leftover = (dir: string, name: string) => join(dir, `.${name}.spillway-0a1b2c3d4e5f.tmp`);
const SECRET_COPY = '{"mcpServers":{"fs":{"command":"npx","env":{"API_KEY":"sekrit123"}},"spillway":{"url":"x"}}}';

/** A leftover of a write cut short `ageMs` ago. */
async function leave(dir: string, name: string, ageMs: number): Promise<string> {
  const file = leftover(dir, name);
  await writeFile(file, SECRET_COPY);
  const at = new Date(Date.now() - ageMs);
  await utimes(file, at, at);
  return file;
}
const temps = async (dir: string) => (await readdir(dir)).filter((n) => n.includes('.spillway-'));

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'spillway-leftovers-'));
  hub = await startTestHub({ version: 1 }, { clientOs: { home, platform: 'linux', env: { HOME: home } }, port: await freePort() });
});
afterAll(async () => {
  await hub?.stop();
  await rm(home, { recursive: true, force: true });
});
beforeEach(async () => {
  await mkdir(cursorDir(), { recursive: true });
  await writeFile(join(cursorDir(), 'mcp.json'), '{"mcpServers":{"fs":{"command":"npx","env":{"API_KEY":"sekrit123"}}}}\n');
  await mkdir(geminiDir(), { recursive: true });
  await writeFile(join(geminiDir(), 'settings.json'), '{"theme":"dark"}\n');
});
afterEach(async () => {
  await rm(cursorDir(), { recursive: true, force: true });
  await rm(geminiDir(), { recursive: true, force: true });
});

describe("leftovers of an interrupted write to an app's config file", () => {
  it('connect removes a stale one beside the file it writes', async () => {
    await leave(cursorDir(), 'mcp.json', 60_000);
    expect((await hub.api('clients.connect', { id: 'cursor' })).ok).toBe(true);
    expect(await temps(cursorDir())).toEqual([]);
  });

  it('disconnect removes one too', async () => {
    expect((await hub.api('clients.connect', { id: 'cursor' })).ok).toBe(true);
    await leave(cursorDir(), 'mcp.json', 60_000);
    expect((await hub.api('clients.disconnect', { id: 'cursor' })).ok).toBe(true);
    expect(await temps(cursorDir())).toEqual([]);
  });

  it('the start-up repair removes them beside every app file, written to or not', async () => {
    await leave(cursorDir(), 'mcp.json', 60_000);
    await leave(geminiDir(), 'settings.json', 60_000);
    await hub.repairClients();
    expect(await temps(cursorDir())).toEqual([]);
    expect(await temps(geminiDir())).toEqual([]);
  });

  it("leaves a young one (another process's write under way), and other files of the folder", async () => {
    const young = await leave(cursorDir(), 'mcp.json', 0);
    const other = join(cursorDir(), '.other.json.spillway-0a1b2c3d4e5f.tmp');
    await writeFile(other, '{}');
    await utimes(other, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    await hub.repairClients();
    expect((await hub.api('clients.connect', { id: 'cursor' })).ok).toBe(true);
    expect((await temps(cursorDir())).sort()).toEqual([young, other].map((f) => f.slice(cursorDir().length + 1)).sort());
  });
});
