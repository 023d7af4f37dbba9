/**
 * The ledger rolls its older files up into per-day totals (ledger-rollup.ts): the savings shown stay the
 * same, the folder and the reading at each start stay bounded however many calls were made, and a crash
 * at any step of a rollup loses no record and counts none twice.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readdir, readFile, rm, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ledger, type CallRecordInput, type LedgerOptions } from '../../electron/core/ledger/ledger.js';
import { ROLLUP_FILE } from '../../electron/core/ledger/ledger-rollup.js';
import type { ResultAction } from '../../shared/events.js';
import type { SavingsReport } from '../../shared/ledger.js';

const DAY = 86_400_000;
/** Small files, so a few hundred records make many of them. */
const FILE_BYTES = 3_000;
const ACTIONS: ResultAction[] = ['pass', 'spill', 'truncate', 'cache', 'compress', 'error', 'cancelled'];

let dir: string;
let clock: number;
const now = () => clock;
const ledgers: Ledger[] = [];

async function openLedger(opts: Partial<LedgerOptions> = {}): Promise<Ledger> {
  // No rollup while records are made unless a test asks (rollUpEvery): the tests call rollUp themselves.
  const ledger = new Ledger({ dir, now, maxFileBytes: FILE_BYTES, rollUpEvery: Number.POSITIVE_INFINITY, ...opts });
  ledgers.push(ledger);
  await ledger.open();
  return ledger;
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-ledger-rollup-'));
  clock = Date.parse('2025-03-10T08:00:00.000Z');
});

afterEach(async () => {
  await Promise.all(ledgers.splice(0).map((l) => l.close()));
  await rm(dir, { recursive: true, force: true });
});

/** The `i`th call of a day: varied tools, clients and actions. */
function someCall(i: number): CallRecordInput {
  const up = 500 + ((i * 37) % 900);
  return {
    ...(i % 5 === 0 ? {} : { client: i % 2 ? 'claude-ai' : 'cursor' }),
    server: i % 3 ? 'files' : 'github',
    tool: ['read_file', 'search', 'list'][i % 3] ?? 'read_file',
    action: ACTIONS[i % ACTIONS.length] ?? 'pass',
    tokensUpstream: up,
    tokensDelivered: i % 4 ? 120 : up,
    tokensEstimated: i % 11 === 0,
    bytesUpstream: up * 4,
    bytesDelivered: 480,
    latencyMs: 3.5,
    ...(i % 7 === 0 ? { tokensSavedByEncoding: 40 } : {}),
  };
}

const someList = { client: 'cursor', tokensUpstreamSchemas: 9_000, tokensExposed: 2_500 };

/** Records `perDay` calls and one tools/list a day for `days` days, moving the clock. */
function fill(ledger: Ledger, days: number, perDay: number): void {
  for (let d = 0; d < days; d++) {
    for (let i = 0; i < perDay; i++) {
      ledger.recordCall(someCall(i));
      clock += 60_000;
    }
    ledger.recordList(someList);
    clock += DAY;
  }
}

/** Every window the Savings view asks for, and all time. */
function reports(ledger: Ledger): SavingsReport[] {
  return [ledger.report(), ledger.report({ days: 1 }), ledger.report({ days: 2 }), ledger.report({ days: 7 }), ledger.report({ days: 30 })];
}

/** The ledger files, oldest first. */
async function segmentFiles(): Promise<string[]> {
  const index = (f: string) => Number(/^ledger(?:\.(\d+))?\.jsonl$/.exec(f)?.[1] ?? 0);
  return (await readdir(dir)).filter((f) => /^ledger(\.\d+)?\.jsonl$/.test(f)).sort((a, b) => index(a) - index(b));
}

async function bytesOf(files: string[]): Promise<number> {
  let total = 0;
  for (const f of files) total += (await stat(join(dir, f))).size;
  return total;
}

/** The contents of the ledger files now, to put back later as a crash would have left them. */
async function snapshot(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const f of await segmentFiles()) out.set(f, await readFile(join(dir, f), 'utf8'));
  return out;
}

/** Fills a ledger over four days, closes it, and returns its reports (the truth the tests compare with). */
async function history(perDay = 60): Promise<SavingsReport[]> {
  const ledger = await openLedger();
  fill(ledger, 4, perDay);
  const before = reports(ledger);
  await ledger.close();
  return before;
}

describe('Ledger rollup', () => {
  it('rolls older files into day totals: every report is the same before and after, and after a restart', async () => {
    const before = await history();
    const files = await segmentFiles();
    expect(files.length).toBeGreaterThan(10);

    const ledger = await openLedger();
    await ledger.rollUp();
    expect(reports(ledger)).toEqual(before);
    const left = await segmentFiles();
    expect(left).toHaveLength(2);
    // The newest files are kept line by line.
    expect(new Set(left)).toEqual(new Set(files.slice(-2)));
    if (process.platform !== 'win32') expect((await stat(join(dir, ROLLUP_FILE))).mode & 0o777).toBe(0o600);
    await ledger.close();

    const again = await openLedger();
    const opened = await again.open();
    expect(opened.rolledDays).toBe(4);
    expect(opened.records).toBeLessThan(40);
    expect(reports(again)).toEqual(before);
  });

  it('keeps the folder and the reading at start bounded however many calls were made', async () => {
    const sizes: { segments: number; segmentBytes: number; rollupBytes: number; read: number }[] = [];
    for (const perDay of [100, 1_000]) {
      await rm(dir, { recursive: true, force: true });
      clock = Date.parse('2025-03-10T08:00:00.000Z');
      // Rollups run while records are made, as in a hub that stays up for months: one every 10 records
      // (under what a file holds, as in the hub), with the records written every 10 too.
      const ledger = await openLedger({ rollUpEvery: 10 });
      for (let day = 0; day < 4; day++) {
        for (let i = 0; i < perDay / 10; i++) {
          for (let j = 0; j < 10; j++) ledger.recordCall(someCall(i * 10 + j));
          clock += 60_000;
          await ledger.flush();
        }
        ledger.recordList(someList);
        clock += DAY;
      }
      const before = reports(ledger);
      await ledger.close();
      const again = await openLedger();
      const opened = await again.open();
      expect(reports(again)).toEqual(before);
      const segments = await segmentFiles();
      sizes.push({
        segments: segments.length,
        segmentBytes: await bytesOf(segments),
        rollupBytes: (await stat(join(dir, ROLLUP_FILE))).size,
        read: opened.records,
      });
    }
    const [few, many] = sizes;
    // Ten times the calls: the same few files read line by line at start (the two kept, and the one or
    // two made since the last rollup), and a rollup as big as the days and tools it counts.
    for (const s of [few, many]) {
      expect(s?.segments).toBeLessThanOrEqual(4);
      expect(s?.segmentBytes).toBeLessThanOrEqual(4 * FILE_BYTES);
      expect(s?.read).toBeLessThanOrEqual((4 * FILE_BYTES) / 100);
    }
    expect(many?.rollupBytes).toBeLessThan((few?.rollupBytes ?? 0) * 1.2);
  });

  it('a crash after the rollup is written and before the files are deleted counts nothing twice', async () => {
    const before = await history();
    const files = await snapshot();
    const ledger = await openLedger();
    await ledger.rollUp();
    await ledger.close();
    // As a crash part way through the deletions would leave it: the new rollup, and most of the files it
    // counts still there (the two kept are there anyway).
    let putBack = 0;
    for (const [f, text] of files) {
      if (putBack++ % 3 === 0) continue;
      await writeFile(join(dir, f), text);
    }
    expect((await segmentFiles()).length).toBeGreaterThan(5);

    const again = await openLedger();
    expect(reports(again)).toEqual(before);
    await again.rollUp();
    expect(await segmentFiles()).toHaveLength(2);
    expect(reports(again)).toEqual(before);
    await again.close();
    const third = await openLedger();
    expect(reports(third)).toEqual(before);
  });

  it('a crash while the rollup is written leaves the old rollup and every file: nothing lost', async () => {
    // A first rollup, then more records, and a second rollup cut short by a crash: its temp file is left.
    await history();
    const first = await openLedger();
    await first.rollUp();
    fill(first, 2, 60);
    const before = reports(first);
    await first.close();
    const oldRollup = await readFile(join(dir, ROLLUP_FILE), 'utf8');
    const temp = join(dir, `${ROLLUP_FILE}.123456789`);
    await writeFile(temp, oldRollup.slice(0, oldRollup.length / 2));
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(temp, hourAgo, hourAgo);

    const again = await openLedger();
    expect(reports(again)).toEqual(before);
    await again.rollUp();
    expect(reports(again)).toEqual(before);
    await expect(stat(temp)).rejects.toMatchObject({ code: 'ENOENT' });
    await again.close();
    const third = await openLedger();
    expect(reports(third)).toEqual(before);
  });

  it('rolling up again changes nothing (a restart repeats no work)', async () => {
    const before = await history();
    const ledger = await openLedger();
    await ledger.rollUp();
    const text = await readFile(join(dir, ROLLUP_FILE), 'utf8');
    await ledger.rollUp();
    await ledger.close();
    const again = await openLedger();
    await again.rollUp();
    expect(await readFile(join(dir, ROLLUP_FILE), 'utf8')).toBe(text);
    expect(reports(again)).toEqual(before);
  });

  it('records made after every ledger file was deleted by hand go to a file the rollup does not count', async () => {
    await history();
    const ledger = await openLedger();
    await ledger.rollUp();
    await ledger.close();
    const files = await segmentFiles();
    for (const f of files) await unlink(join(dir, f));

    const again = await openLedger();
    const rolledCalls = again.report().allTime.calls;
    expect(rolledCalls).toBeGreaterThan(0);
    fill(again, 1, 5);
    await again.close();
    // The file after the ones the rollup counts (the first of the two it had kept), not a new ledger.jsonl.
    expect(files).toHaveLength(2);
    expect(await segmentFiles()).toEqual(files.slice(0, 1));
    const third = await openLedger();
    expect(third.report().allTime.calls).toBe(rolledCalls + 5);
  });

  it('a rollup file it cannot read is reported and left alone, and no ledger file is deleted', async () => {
    await history();
    const files = await segmentFiles();
    await writeFile(join(dir, ROLLUP_FILE), '{"version":1,"through":');
    const errors: unknown[] = [];
    const ledger = await openLedger({ onError: (err) => errors.push(err) });
    const opened = await ledger.open();
    expect(opened.unreadable).toEqual([join(dir, ROLLUP_FILE)]);
    expect(String(errors[0])).toContain('cannot read the savings history');
    await ledger.rollUp();
    expect(await segmentFiles()).toEqual(files);
    expect(await readFile(join(dir, ROLLUP_FILE), 'utf8')).toBe('{"version":1,"through":');
  });
});
