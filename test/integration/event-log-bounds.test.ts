/**
 * The event log's disk side stays bounded however fast events come (audit s11, item 1): the queue of
 * events waiting for the disk has a cap (the rest are counted and reported), and all event files
 * together have a size cap past which the oldest go.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog, type EventLogOptions } from '../../electron/core/log/event-log.js';
import { readJsonLines } from '../../electron/core/log/journal-files.js';

let dir: string;
const logs: EventLog[] = [];

function openLog(opts: Partial<EventLogOptions> = {}): EventLog {
  const log = new EventLog({ dir, retentionDays: 14, now: () => Date.parse('2025-03-10T12:00:00.000Z'), validate: true, ...opts });
  logs.push(log);
  return log;
}

async function folderBytes(): Promise<{ files: number; bytes: number }> {
  const files = await readdir(dir);
  let bytes = 0;
  for (const f of files) bytes += (await stat(join(dir, f))).size;
  return { files: files.length, bytes };
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-event-bounds-'));
});

afterEach(async () => {
  await Promise.all(logs.splice(0).map((l) => l.close()));
  await rm(dir, { recursive: true, force: true });
});

describe('EventLog bounds', () => {
  it('keeps the queue for the disk bounded, and says how many events it did not save', async () => {
    const log = openLog({ maxQueued: 1000 });
    let most = 0;
    for (let i = 0; i < 50_000; i++) {
      log.emit({ type: 'upstream.stderr', level: 'debug', server: 'flood', line: `line ${i}` });
      most = Math.max(most, log.queued);
    }
    expect(most).toBe(1000);
    // Every event still reached the live side.
    expect(log.lastSeq).toBe(50_000);
    await log.flush();
    await log.flush();
    const warning = log.recent().find((e) => e.type === 'log');
    expect(warning).toMatchObject({ level: 'warn', message: expect.stringContaining('49,000 events were not saved to the log files') });
    const onDisk: unknown[] = [];
    const files = await readdir(dir);
    for (const f of files) await readJsonLines(join(dir, f), (v) => onDisk.push(v));
    expect(onDisk).toHaveLength(1001);
    expect(onDisk.at(-1)).toMatchObject({ type: 'log', level: 'warn' });
  });

  it('deletes the oldest files once all of them together pass the size cap', async () => {
    const log = openLog({ maxFileBytes: 10_000, maxTotalBytes: 50_000, ringSize: 5 });
    const line = 'x'.repeat(200);
    for (let round = 0; round < 40; round++) {
      for (let i = 0; i < 100; i++) log.emit({ type: 'upstream.stderr', level: 'debug', server: 'flood', line: `${round}.${i} ${line}` });
      await log.flush();
      const { bytes } = await folderBytes();
      expect(bytes).toBeLessThanOrEqual(50_000);
    }
    const { files } = await folderBytes();
    expect(files).toBeLessThanOrEqual(5);
    // The newest events are the ones kept, and a query past the ring still reads them from disk.
    const found = await log.query({ server: 'flood', limit: 10 });
    expect(found).toHaveLength(10);
    expect(found.at(-1)).toMatchObject({ seq: 4000 });
  });

  it('applies the cap to the files a previous run left', async () => {
    const first = openLog({ maxFileBytes: 10_000 });
    for (let i = 0; i < 2000; i++) first.emit({ type: 'upstream.stderr', level: 'debug', server: 'flood', line: 'y'.repeat(200) });
    await first.close();
    expect((await folderBytes()).bytes).toBeGreaterThan(200_000);
    const second = openLog({ maxFileBytes: 10_000, maxTotalBytes: 30_000 });
    second.emit({ type: 'log', level: 'info', message: 'started again' });
    await second.flush();
    expect((await folderBytes()).bytes).toBeLessThanOrEqual(30_000);
    expect(second.lastSeq).toBe(2001);
  });
});
