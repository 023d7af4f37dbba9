/**
 * Pruning backups never folds a write to a file that existed into a record saying the file did not exist
 * (it kept records of a Connect to an existing file inside the record of the Connect that created it, so
 * Disconnect took that file for Spillway's own to delete). The history of which file existed stays true, and
 * the 50-records limit still holds when Connect creates the file and Disconnect deletes it over and over.
 * Real record files in a temp folder.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listBackups, pruneBackups, saveBackup, sha256, type BackupOptions } from '../../electron/core/clients/backup-store.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-prune-existed-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const FILE = '/home/u/.cursor/mcp.json';
const bytes = (text: string | null) => (text === null ? null : Buffer.from(text));

/** Writes `texts` one after the other (null: no file), with a backup and a prune after each, as Spillway does. */
async function writes(options: BackupOptions, texts: (string | null)[]): Promise<void> {
  for (let i = 1; i < texts.length; i++) {
    await saveBackup(options, FILE, bytes(texts[i - 1]), bytes(texts[i]), i % 2 === 1 ? 'connect' : 'disconnect');
    await pruneBackups(options);
  }
}

/** The records, oldest first; each one kept still starts from the bytes the one before it left. */
async function chain(): Promise<Awaited<ReturnType<typeof listBackups>>> {
  const records = (await listBackups(dir)).reverse();
  for (let i = 1; i < records.length; i++) expect(records[i].sha256Before).toBe(records[i - 1].sha256After);
  return records;
}

const ENTRY = '{"mcpServers":{"spillway":{}}}';

describe('pruning keeps which file existed true', () => {
  it('a write to a file that existed is never folded into the record of the write that created it', async () => {
    const options = { dir, keep: 4 };
    // Connect creates the file, Disconnect leaves it empty, then Connect and Disconnect over and over: the file exists throughout.
    await writes(options, [null, ENTRY, '{}', ENTRY, '{}', ENTRY, '{}', ENTRY, '{}', ENTRY]);
    const records = await chain();
    expect(records).toHaveLength(4);
    expect(records[0].existed).toBe(false);
    // It still says just what the write that created the file did: no later write is folded into it.
    expect(records[0].sha256After).toBe(sha256(bytes(ENTRY)));
    expect(records.slice(1).every((r) => r.existed)).toBe(true);
  });

  it('keeps to the limit while Connect creates the file and Disconnect deletes it again and again', async () => {
    const options = { dir, keep: 4 };
    const texts: (string | null)[] = [null];
    for (let i = 0; i < 12; i++) texts.push(ENTRY, null);
    texts.push(ENTRY);
    await writes(options, texts);
    const records = await chain();
    expect(records).toHaveLength(4);
    // A record saying the file did not exist only ever stands for writes that found no file: each created it.
    for (const r of records.filter((x) => !x.existed)) expect(r.sha256After).toBe(sha256(bytes(ENTRY)));
  });
});
