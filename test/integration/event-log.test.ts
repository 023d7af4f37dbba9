import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendFile, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog, type EventLogOptions } from '../../electron/core/log/event-log.js';
import { REDACTED } from '../../electron/core/log/redact.js';
import { EventFilterSchema, matchesFilter, type EventFilter, type HubEvent, type HubEventInput } from '../../shared/events.js';

const DAY = 86_400_000;

let dir: string;
let clock: number;
const now = () => clock;
const logs: EventLog[] = [];

function openLog(opts: Partial<EventLogOptions> = {}): EventLog {
  const log = new EventLog({ dir, retentionDays: 14, now, validate: true, ...opts });
  logs.push(log);
  return log;
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-event-log-'));
  clock = Date.parse('2025-03-10T12:00:00.000Z');
});

afterEach(async () => {
  await Promise.all(logs.splice(0).map((l) => l.close()));
  await rm(dir, { recursive: true, force: true });
});

/** A varied, realistic stream: statuses, calls from two clients, stderr, warnings. */
function sampleInputs(n: number): HubEventInput[] {
  const out: HubEventInput[] = [];
  const servers = ['github', 'files', 'memory'];
  const clients = ['claude-ai', 'cursor'];
  for (let i = 0; i < n; i++) {
    const server = servers[i % 3];
    const client = clients[i % 2];
    switch (i % 5) {
      case 0:
        out.push({
          type: 'upstream.status',
          level: i % 10 === 0 ? 'error' : 'info',
          server,
          status: i % 10 === 0 ? 'error' : 'ready',
          error: i % 10 === 0 ? `spawn failed ${i}` : undefined,
        });
        break;
      case 1:
        out.push({ type: 'call.started', level: 'debug', callId: `c${i}`, client, server, tool: 'read_file', exposedName: `${server}__read_file` });
        break;
      case 2:
        out.push({
          type: 'call.finished',
          level: 'info',
          callId: `c${i - 1}`,
          client,
          server,
          tool: 'read_file',
          exposedName: `${server}__read_file`,
          durationMs: i,
          isError: false,
          action: i % 4 === 0 ? 'spill' : 'pass',
          bytesUpstream: 1000 * i,
          bytesDelivered: 100,
        });
        break;
      case 3:
        out.push({ type: 'upstream.stderr', level: 'debug', server, line: `stderr line ${i} Needle${i % 7}` });
        break;
      default:
        out.push({ type: 'log', level: 'warn', message: `slow upstream ${i}`, server });
    }
  }
  return out;
}

/** What query must return, computed from everything emitted: the last `limit` matches, ascending. */
function expected(all: HubEvent[], filter: EventFilter): number[] {
  const f = EventFilterSchema.parse(filter);
  return all
    .filter((e) => matchesFilter(e, f))
    .slice(-f.limit)
    .map((e) => e.seq);
}

const filters: [string, EventFilter][] = [
  ['everything', {}],
  ['by type', { types: ['call.finished'] }],
  ['by two types', { types: ['upstream.status', 'log'] }],
  ['by server', { server: 'files' }],
  ['by tool (upstream name)', { tool: 'read_file' }],
  ['by tool (exposed name)', { tool: 'github__read_file' }],
  ['by client', { client: 'cursor' }],
  ['min level warn', { level: 'warn' }],
  ['min level error', { level: 'error' }],
  ['text, case-insensitive', { text: 'needle3' }],
  ['afterSeq inside the disk part', { afterSeq: 5 }],
  ['afterSeq inside the ring', { afterSeq: 57 }],
  ['limit takes the last matches', { limit: 7 }],
  ['limit with a type', { types: ['call.started'], limit: 3 }],
  ['combined', { server: 'github', level: 'info', limit: 4 }],
  ['nothing matches', { client: 'nobody' }],
];

describe('EventLog', () => {
  it('stamps monotonic seq and ISO time, and tells subscribers synchronously', () => {
    const log = openLog();
    const seen: number[] = [];
    const unsubscribe = log.subscribe((e) => seen.push(e.seq));
    const a = log.emit({ type: 'log', level: 'info', message: 'one' });
    expect(seen).toEqual([1]);
    clock += 5;
    const b = log.emit({ type: 'config.changed', level: 'info', what: 'settings' });
    expect([a.seq, b.seq]).toEqual([1, 2]);
    expect(a.time).toBe('2025-03-10T12:00:00.000Z');
    expect(b.time).toBe('2025-03-10T12:00:00.005Z');
    expect(log.lastSeq).toBe(2);
    unsubscribe();
    log.emit({ type: 'log', level: 'info', message: 'three' });
    expect(seen).toEqual([1, 2]);
  });

  it('keeps a given time, and a throwing subscriber does not stop the others', () => {
    const errors: unknown[] = [];
    const log = openLog({ onError: (e) => errors.push(e) });
    const seen: string[] = [];
    log.subscribe(() => {
      throw new Error('bad listener');
    });
    log.subscribe((e) => seen.push(e.time));
    log.emit({ type: 'log', level: 'info', message: 'x', time: '2025-01-01T00:00:00.000Z' });
    expect(seen).toEqual(['2025-01-01T00:00:00.000Z']);
    expect(errors).toHaveLength(1);
  });

  it('refuses a malformed event when validating, without consuming a seq', () => {
    const log = openLog();
    expect(() => log.emit({ type: 'log', level: 'loud', message: 'x' } as unknown as HubEventInput)).toThrow();
    expect(log.emit({ type: 'log', level: 'info', message: 'ok' }).seq).toBe(1);
  });

  it('bounds the ring and writes to disk off the caller path', async () => {
    const log = openLog({ ringSize: 5 });
    for (const input of sampleInputs(12)) log.emit(input);
    expect(log.recent().map((e) => e.seq)).toEqual([8, 9, 10, 11, 12]);
    // Nothing is written until the event loop turns: emit never waits for the disk.
    expect(await readdir(dir)).toEqual([]);
    await log.flush();
    const lines = (await readFile(join(dir, 'events-2025-03-10.jsonl'), 'utf8')).trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as HubEvent).seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect((await log.query({})).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it('answers queries across the ring and the files, before and after a restart', async () => {
    const first = openLog({ ringSize: 8 });
    const all: HubEvent[] = [];
    for (const input of sampleInputs(40)) {
      all.push(first.emit(input));
      clock += 1000;
    }
    // Queried while some events may still be pending: the log flushes before reading its files.
    for (const [name, filter] of filters) {
      expect(
        (await first.query(filter)).map((e) => e.seq),
        `before restart: ${name}`,
      ).toEqual(expected(all, filter));
    }
    await first.close();

    const second = openLog({ ringSize: 8 });
    expect(second.lastSeq).toBe(40);
    for (const input of sampleInputs(25)) {
      all.push(second.emit(input));
      clock += 1000;
    }
    expect(all.map((e) => e.seq)).toEqual(Array.from({ length: 65 }, (_, i) => i + 1));
    for (const [name, filter] of filters) {
      expect(
        (await second.query(filter)).map((e) => e.seq),
        `after restart: ${name}`,
      ).toEqual(expected(all, filter));
    }
    // Full events come back, not just seqs.
    const [last] = await second.query({ limit: 1 });
    expect(last).toEqual(all.at(-1));
  });

  it('queries by since across day files, and ignores files of days before it', async () => {
    const log = openLog({ ringSize: 3 });
    const all: HubEvent[] = [];
    for (let day = 0; day < 4; day++) {
      for (const input of sampleInputs(6)) {
        all.push(log.emit(input));
        clock += 60_000;
      }
      await log.flush();
      clock += DAY;
    }
    const files = (await readdir(dir)).sort();
    expect(files).toEqual(['events-2025-03-10.jsonl', 'events-2025-03-11.jsonl', 'events-2025-03-12.jsonl', 'events-2025-03-13.jsonl']);
    for (const since of [
      '2025-03-11T00:00:00.000Z',
      '2025-03-12T12:02:00.000Z',
      '2025-03-13T12:03:30.000Z',
      '2025-03-20T00:00:00.000Z',
      '2025-01-01T00:00:00.000Z',
    ]) {
      for (const extra of [{}, { level: 'warn' as const }, { limit: 2 }]) {
        const filter = { since, ...extra };
        expect(
          (await log.query(filter)).map((e) => e.seq),
          JSON.stringify(filter),
        ).toEqual(expected(all, filter));
      }
    }
    // A day file that predates `since` is not even opened: plant a matching event in it and it stays unseen.
    const planted = { seq: 0, time: '2025-03-12T00:00:00.000Z', level: 'info', type: 'log', message: 'planted' };
    await writeFile(join(dir, 'events-2025-03-10.jsonl'), `${JSON.stringify(planted)}\n`);
    const filter = { since: '2025-03-11T00:00:00.000Z' };
    expect((await log.query(filter)).map((e) => e.seq)).toEqual(expected(all, filter));
  });

  it('rotates a day by size into .1, .2, ... and reads them back in order', async () => {
    const log = openLog({ ringSize: 2, maxFileBytes: 2_000 });
    const all: HubEvent[] = [];
    for (const input of sampleInputs(60)) all.push(log.emit(input));
    await log.flush();
    const files = (await readdir(dir)).sort((a, b) => a.length - b.length || a.localeCompare(b));
    expect(files.length).toBeGreaterThan(3);
    expect(files[0]).toBe('events-2025-03-10.jsonl');
    expect(files[1]).toBe('events-2025-03-10.1.jsonl');
    for (const file of files) expect((await stat(join(dir, file))).size).toBeLessThanOrEqual(2_000);
    expect((await log.query({ limit: 1000 })).map((e) => e.seq)).toEqual(all.map((e) => e.seq));
    await log.close();

    // A restart appends to the last file until it is full, then moves on.
    const again = openLog({ ringSize: 2, maxFileBytes: 2_000 });
    expect(again.lastSeq).toBe(60);
    for (const input of sampleInputs(30)) all.push(again.emit(input));
    await again.flush();
    expect((await again.query({ limit: 1000 })).map((e) => e.seq)).toEqual(all.map((e) => e.seq));
    for (const file of await readdir(dir)) expect((await stat(join(dir, file))).size).toBeLessThanOrEqual(2_000);
  });

  it('deletes files older than the retention at open and when the day changes', async () => {
    const line = (seq: number, time: string) => `${JSON.stringify({ seq, time, level: 'info', type: 'log', message: `old ${seq}` })}\n`;
    await writeFile(join(dir, 'events-2025-02-01.jsonl'), line(1, '2025-02-01T10:00:00.000Z'));
    await writeFile(join(dir, 'events-2025-03-02.jsonl'), line(2, '2025-03-02T10:00:00.000Z'));
    await writeFile(join(dir, 'events-2025-03-02.1.jsonl'), line(3, '2025-03-02T11:00:00.000Z'));
    await writeFile(join(dir, 'events-2025-03-03.jsonl'), line(4, '2025-03-03T10:00:00.000Z'));
    await writeFile(join(dir, 'events-2025-03-04.jsonl'), line(5, '2025-03-04T10:00:00.000Z'));
    await writeFile(join(dir, 'unrelated.txt'), 'keep me');

    const log = openLog({ retentionDays: 7 }); // today 2025-03-10: keep 03-03 .. 03-10
    expect(log.lastSeq).toBe(5);
    await log.flush();
    expect((await readdir(dir)).sort()).toEqual(['events-2025-03-03.jsonl', 'events-2025-03-04.jsonl', 'unrelated.txt']);
    expect((await log.query({})).map((e) => e.seq)).toEqual([4, 5]);

    log.emit({ type: 'log', level: 'info', message: 'today' });
    await log.flush();
    clock += 2 * DAY; // 2025-03-12: 03-05 is the oldest day kept
    log.emit({ type: 'log', level: 'info', message: 'two days later' });
    await log.flush();
    expect((await readdir(dir)).sort()).toEqual(['events-2025-03-10.jsonl', 'events-2025-03-12.jsonl', 'unrelated.txt']);
    expect((await log.query({})).map((e) => e.seq)).toEqual([6, 7]);
  });

  it('deletes the files older than a retention changed while it runs, at once, and keeps to it', async () => {
    const line = (seq: number, time: string) => `${JSON.stringify({ seq, time, level: 'info', type: 'log', message: `old ${seq}` })}\n`;
    await writeFile(join(dir, 'events-2025-03-04.jsonl'), line(1, '2025-03-04T10:00:00.000Z'));
    await writeFile(join(dir, 'events-2025-03-08.jsonl'), line(2, '2025-03-08T10:00:00.000Z'));
    const log = openLog({ retentionDays: 14 });
    await log.flush();
    expect(await readdir(dir)).toHaveLength(2);

    expect(await log.setRetentionDays(3)).toEqual([join(dir, 'events-2025-03-04.jsonl')]); // keep 03-07 .. 03-10
    expect(await readdir(dir)).toEqual(['events-2025-03-08.jsonl']);
    log.emit({ type: 'log', level: 'info', message: 'today' });
    await log.flush();
    clock += 2 * DAY; // 2025-03-12: 03-09 is the oldest day kept under the new retention
    log.emit({ type: 'log', level: 'info', message: 'two days later' });
    await log.flush();
    expect((await readdir(dir)).sort()).toEqual(['events-2025-03-10.jsonl', 'events-2025-03-12.jsonl']);
  });

  it('skips a torn last line, continues seq, and does not glue the next line onto it', async () => {
    const log = openLog();
    for (const input of sampleInputs(3)) log.emit(input);
    await log.close();
    const file = join(dir, 'events-2025-03-10.jsonl');
    await appendFile(file, '{"seq":4,"time":"2025-03-10T12:00:00.000Z","level":"in');

    const again = openLog({ ringSize: 2 });
    expect(again.lastSeq).toBe(3);
    expect((await again.query({})).map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(again.emit({ type: 'log', level: 'info', message: 'after the crash' }).seq).toBe(4);
    await again.flush();
    const lines = (await readFile(file, 'utf8')).split('\n');
    expect(lines.at(-1)).toBe('');
    expect(lines.slice(0, -1).map((l) => (JSON.parse(l) as HubEvent).seq)).toEqual([1, 2, 3, 4]);
    expect((await again.query({})).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
  });

  it('finds the last seq in an earlier file when the newest holds only a torn line', async () => {
    const log = openLog({ maxFileBytes: 300 });
    for (const input of sampleInputs(5)) log.emit(input);
    await log.close();
    const files = (await readdir(dir)).sort((a, b) => a.length - b.length || a.localeCompare(b));
    await writeFile(join(dir, files.at(-1)!.replace(/(\.\d+)?\.jsonl$/, `.${files.length}.jsonl`)), '{"seq":99,"ti');
    const again = openLog({ maxFileBytes: 300 });
    expect(again.lastSeq).toBe(5);
  });

  it('continues seq when the newest line is larger than the backwards-read chunk', async () => {
    const log = openLog();
    log.emit({ type: 'log', level: 'info', message: 'small' });
    log.emit({ type: 'upstream.stderr', level: 'debug', server: 'big', line: 'x'.repeat(300_000) });
    await log.close();
    const again = openLog();
    expect(again.lastSeq).toBe(2);
    expect((await again.query({ server: 'big' }))[0]).toMatchObject({ line: 'x'.repeat(300_000) });
  });

  it('redacts secrets before events are kept, published or written', async () => {
    const log = openLog();
    const published: HubEvent[] = [];
    log.subscribe((e) => published.push(e));
    const stored = log.emit({
      type: 'upstream.stderr',
      level: 'debug',
      server: 'api',
      line: 'request failed: Authorization: Bearer sk-live-abcdef123456',
    });
    log.emit({
      type: 'call.started',
      level: 'debug',
      callId: 'c1',
      server: 'api',
      tool: 'search',
      exposedName: 'api__search',
      argumentsPreview: '{"q":"cats","api_key":"sk-123456"}',
    });
    expect(stored).toMatchObject({ line: `request failed: Authorization: Bearer ${REDACTED}` });
    expect(published[1]).toMatchObject({ argumentsPreview: `{"q":"cats","api_key":"${REDACTED}"}` });
    await log.flush();
    const text = await readFile(join(dir, 'events-2025-03-10.jsonl'), 'utf8');
    expect(text).not.toContain('sk-live-abcdef123456');
    expect(text).not.toContain('sk-123456');
    expect((await log.query({ text: 'sk-' })).length).toBe(0);
  });

  it('keeps working in memory when the folder cannot be written, and reports the error', async () => {
    const blocker = join(dir, 'not-a-folder');
    await writeFile(blocker, 'a file where the folder should be');
    const errors: unknown[] = [];
    const log = openLog({ dir: blocker, onError: (e) => errors.push(e) });
    const seen: number[] = [];
    log.subscribe((e) => seen.push(e.seq));
    log.emit({ type: 'log', level: 'error', message: 'one' });
    log.emit({ type: 'log', level: 'error', message: 'two' });
    await log.flush();
    expect(seen).toEqual([1, 2]);
    expect(errors.length).toBeGreaterThan(0);
    expect((await log.query({})).map((e) => e.seq)).toEqual([1, 2]);
  });
});
