/**
 * A client-tokens.json that cannot be read is never written over with fewer tokens (audit s16, upgrade):
 * a BOM (Windows Notepad) is read past; a file that is not JSON (a hand edit's trailing comma) is set aside
 * as `client-tokens.json.corrupt-<time>` with a warning that says what to do. Keys this version does not
 * know (a newer or older Spillway's) survive its writes.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ClientTokens } from '../../electron/core/clients/client-tokens.js';

const CURSOR = 'ELpK-UYHNhcbpw5l1Yx_CkrA39HP7dV23YQ_aBvaWOw';
const CLAUDE = 'aBjssFC8W0vz1uzT_Yqfmn0-CElcoE5yg_g8sfDc5M4';

let dir: string;
let file: string;
let said: string[];
const log = (message: string) => void said.push(message);
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tokens-damaged-'));
  file = join(dir, 'client-tokens.json');
  said = [];
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const onDisk = async () => JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
const setAside = async () => (await readdir(dir)).filter((name) => name.startsWith('client-tokens.json.corrupt-'));

it('a file with a BOM (as Windows Notepad saves it) is read: its tokens work, and a write keeps them', async () => {
  await writeFile(file, `\uFEFF${JSON.stringify({ 'claude-code': CLAUDE, cursor: CURSOR }, null, 2)}\n`);
  const tokens = await ClientTokens.open(file, { log });
  expect(tokens.get('cursor')).toBe(CURSOR);
  expect(tokens.lookup(CLAUDE)).toBe('claude-code');
  const desktop = await tokens.ensure('claude-desktop');
  expect(await onDisk()).toMatchObject({ 'claude-code': CLAUDE, cursor: CURSOR, 'claude-desktop': desktop });
  expect(said).toEqual([]);
  expect(await setAside()).toEqual([]);
});

for (const [name, text] of [
  ['with a trailing comma (a hand edit)', `{\n  "claude-code": "${CLAUDE}",\n  "cursor": "${CURSOR}",\n}\n`],
  ['cut short', `{\n  "claude-code": "${CLAUDE}",\n  "cursor": "${CURSOR.slice(0, 9)}`],
  ['holding a list, not an object', `["${CLAUDE}", "${CURSOR}"]\n`],
] as const) {
  it(`a file ${name} is set aside at open with a warning, never written over`, async () => {
    await writeFile(file, text);
    const tokens = await ClientTokens.open(file, { log });
    const [copy] = await setAside();
    expect(copy).toBeDefined();
    expect(await readFile(join(dir, copy!), 'utf8')).toBe(text);
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(join(dir, copy!));
    expect(said[0]).toContain('Clients → Connect');
    // Connecting an app writes a new file; the old tokens stay in the copy.
    const desktop = await tokens.ensure('claude-desktop');
    expect(await onDisk()).toEqual({ 'claude-desktop': desktop });
    expect(await readFile(join(dir, copy!), 'utf8')).toBe(text);
  });
}

it('a file damaged while the hub runs: the tokens read before keep working, and the next write sets it aside and keeps them', async () => {
  await writeFile(file, JSON.stringify({ 'claude-code': CLAUDE, cursor: CURSOR }));
  const hub = await ClientTokens.open(file, { log });
  expect(hub.lookup(CURSOR)).toBe('cursor');
  const damaged = `{ "claude-code": "${CLAUDE}", "cursor": "${CURSOR}", }`;
  await writeFile(file, damaged);
  expect(hub.lookup(CURSOR)).toBe('cursor');
  expect(hub.get('claude-code')).toBe(CLAUDE);
  await hub.noteSeen('cursor');
  const saved = await onDisk();
  expect(saved).toMatchObject({ 'claude-code': CLAUDE, cursor: CURSOR });
  expect(saved['seen']).toHaveProperty('cursor');
  const [copy] = await setAside();
  expect(await readFile(join(dir, copy!), 'utf8')).toBe(damaged);
  expect(said).toHaveLength(1);
  expect(said[0]).toContain(join(dir, copy!));
  expect(said[0]).toContain('Clients → Connect');
});

it('an empty file holds no tokens, and is written over without a warning', async () => {
  await writeFile(file, '');
  const tokens = await ClientTokens.open(file, { log });
  const cursor = await tokens.ensure('cursor');
  expect(await onDisk()).toEqual({ cursor });
  expect(said).toEqual([]);
  expect(await setAside()).toEqual([]);
});

// Downgrade safety: 24d43d3 and every build before 88e1438/4704edb rewrote the file without "revoked" and
// "seen"; the same would happen to whatever a newer Spillway adds.
it('keys this version does not know survive its writes', async () => {
  const other = { token: CLAUDE, createdAt: '2026-11-25' };
  await writeFile(
    file,
    `{ "cursor": "${CURSOR}", "labels": { "cursor": "work laptop" }, "any-other": ${JSON.stringify(other)}, "__proto__": { "x": 1 }, "short": "abc" }`,
  );
  const tokens = await ClientTokens.open(file, { log });
  await tokens.ensure('claude-desktop');
  await tokens.noteSeen('cursor');
  const after = await onDisk();
  expect(after['labels']).toEqual({ cursor: 'work laptop' });
  expect(after['any-other']).toEqual(other);
  expect(Object.getOwnPropertyDescriptor(after, '__proto__')?.value).toEqual({ x: 1 });
  expect(after['short']).toBe('abc');
  expect(after['cursor']).toBe(CURSOR);
  // Another process's write (read again under its lock) keeps them too.
  await (await ClientTokens.open(file, { log })).revoke('cursor');
  const again = await onDisk();
  expect(again['labels']).toEqual({ cursor: 'work laptop' });
  expect(again['cursor']).toBeUndefined();
  expect(said).toEqual([]);
});
