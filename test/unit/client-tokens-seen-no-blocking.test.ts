/**
 * Every request of a client passes through `noteSeen`: it looks at client-tokens.json without blocking
 * (no synchronous stat or read), and still moves a client's time at most once a minute when requests
 * overlap while it looks.
 */
import * as fs from 'node:fs';
import { mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { ClientTokens } from '../../electron/core/clients/client-tokens.js';

// The module's own fs functions, watched: the same functions, counted.
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  return { ...real, statSync: vi.fn(real.statSync), readFileSync: vi.fn(real.readFileSync) };
});
// Writes end in a rename onto the file: counted the same way.
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return { ...real, rename: vi.fn(real.rename) };
});

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-seen-async-'));
  file = join(dir, 'client-tokens.json');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const t0 = new Date('2025-03-01T10:00:00.000Z');

it('noteSeen looks at the file without synchronous file calls, also when another process wrote it', async () => {
  const hub = await ClientTokens.open(file);
  await hub.ensure('cursor');
  // Another process (`spillway clients connect`) writes the file: the hub's next look reads it.
  const zed = await (await ClientTokens.open(file)).ensure('zed');
  vi.mocked(fs.statSync).mockClear();
  vi.mocked(fs.readFileSync).mockClear();
  await hub.noteSeen('cursor', t0);
  expect(fs.statSync).not.toHaveBeenCalled();
  expect(fs.readFileSync).not.toHaveBeenCalled();
  // What it read is kept: the other process's token is known without another look.
  expect(hub.known()).toContain(zed);
  expect(hub.lastSeen('cursor')).toBe(t0.toISOString());
});

it('two requests of one client at the same moment move its time once', async () => {
  const tokens = await ClientTokens.open(file);
  const later = new Date(t0.getTime() + 1000);
  vi.mocked(rename).mockClear();
  await Promise.all([tokens.noteSeen('cursor', t0), tokens.noteSeen('cursor', later)]);
  // Which of the two looks at the file first is the file system's order: that one moves the time, once.
  const seen = tokens.lastSeen('cursor');
  expect([t0.toISOString(), later.toISOString()]).toContain(seen);
  expect(JSON.parse(await readFile(file, 'utf8')).seen).toEqual({ cursor: seen });
  expect(vi.mocked(rename).mock.calls.filter(([, to]) => to === file)).toHaveLength(1);
});
