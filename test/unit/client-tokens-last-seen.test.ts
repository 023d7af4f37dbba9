/** When each app was last seen is kept with its token, written at most once a minute, and read back at the next start. */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ClientTokens } from '../../electron/core/clients/client-tokens.js';

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-seen-'));
  file = join(dir, 'client-tokens.json');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const t0 = new Date('2025-03-01T10:00:00.000Z');
const after = (ms: number) => new Date(t0.getTime() + ms);

it('a last-seen time survives reopening the file (a restart)', async () => {
  const tokens = await ClientTokens.open(file);
  const token = await tokens.ensure('cursor');
  await tokens.noteSeen('cursor', t0);
  expect(tokens.lastSeen('cursor')).toBe(t0.toISOString());
  const reopened = await ClientTokens.open(file);
  expect(reopened.lastSeen('cursor')).toBe(t0.toISOString());
  expect(reopened.lookup(token)).toBe('cursor');
  expect(reopened.lastSeen('vscode')).toBeUndefined();
});

it('moves the time (and writes the file) at most once a minute per app', async () => {
  const tokens = await ClientTokens.open(file);
  await tokens.noteSeen('cursor', t0);
  const written = await readFile(file, 'utf8');
  await tokens.noteSeen('cursor', after(59_000));
  expect(await readFile(file, 'utf8')).toBe(written);
  expect(tokens.lastSeen('cursor')).toBe(t0.toISOString());
  await tokens.noteSeen('vscode', after(59_000));
  expect(tokens.lastSeen('vscode')).toBe(after(59_000).toISOString());
  await tokens.noteSeen('cursor', after(60_000));
  expect((await ClientTokens.open(file)).lastSeen('cursor')).toBe(after(60_000).toISOString());
});

it('keeps the times when another process adds a token, and a file without them still loads', async () => {
  const hub = await ClientTokens.open(file);
  await hub.noteSeen('cursor', t0);
  const cli = await ClientTokens.open(file);
  await cli.ensure('zed');
  expect(hub.lastSeen('cursor')).toBe(t0.toISOString());
  expect(JSON.parse(await readFile(file, 'utf8')).seen).toEqual({ cursor: t0.toISOString() });
  await writeFile(file, JSON.stringify({ cursor: 'a'.repeat(32), seen: { zed: 'not a time', cursor: 7 } }));
  const old = await ClientTokens.open(file);
  expect(old.lastSeen('zed')).toBeUndefined();
  expect(old.lookup('a'.repeat(32))).toBe('cursor');
});
