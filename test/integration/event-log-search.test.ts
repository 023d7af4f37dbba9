/**
 * `events.search`: the Activity filters find events older than the window holds, in the event files on
 * disk, a bounded part per request (paged with a cursor), newest first and never twice.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { appendFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../electron/core/log/event-log.js';
import { searchEvents } from '../../electron/core/log/event-search.js';
import { listSegments } from '../../electron/core/log/journal-files.js';
import type { HubEvent } from '../../shared/events.js';
import type { EventSearchRequest } from '../../shared/api-events.js';

let dir: string;
let clock: number;
const logs: EventLog[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-event-search-'));
  clock = Date.parse('2026-03-10T12:00:00.000Z');
});
afterEach(async () => {
  for (const log of logs.splice(0)) await log.close();
  await rm(dir, { recursive: true, force: true });
});

/** A log of 2,000 events over several files: a warning from `files` every 100th, the rest from `web`. */
async function filledLog(): Promise<EventLog> {
  const log = new EventLog({ dir, retentionDays: 30, now: () => clock, ringSize: 50, maxFileBytes: 32 * 1024, validate: true });
  logs.push(log);
  for (let i = 1; i <= 2000; i++) {
    clock += 1000;
    if (i % 100 === 0) log.emit({ type: 'log', level: 'warn', server: 'files', message: `disk nearly full (${i})` });
    else log.emit({ type: 'log', level: 'info', server: 'web', message: `fetched page ${i}` });
  }
  await log.flush();
  return log;
}

it('finds matching events older than the ring in the files on disk, by server, level and text', async () => {
  const log = await filledLog();
  expect((await readdir(dir)).length).toBeGreaterThan(3);
  const oldestHeld = log.recent()[0]!.seq;
  const bySearch = await log.search({ server: 'files', beforeSeq: oldestHeld, limit: 500 });
  expect(bySearch.events.map((e) => e.seq)).toEqual(Array.from({ length: 19 }, (_, i) => (i + 1) * 100));
  expect(bySearch.next).toBeNull();
  expect(bySearch.bytesLeft).toBe(0);

  const byText = await log.search({ text: 'NEARLY FULL (700)', beforeSeq: oldestHeld });
  expect(byText.events.map((e) => (e as Extract<HubEvent, { type: 'log' }>).message)).toEqual(['disk nearly full (700)']);
  const byLevel = await log.search({ level: 'warn', beforeSeq: 1000, limit: 500 });
  expect(byLevel.events.map((e) => e.seq)).toEqual([100, 200, 300, 400, 500, 600, 700, 800, 900]);
});

it('pages with a cursor: each answer reads a bounded part, the pages together are every match once', async () => {
  const log = await filledLog();
  const segments = await listSegments(dir, 'events', true);
  const isEvent = (v: unknown): v is HubEvent => typeof v === 'object' && v !== null && typeof (v as HubEvent).seq === 'number';
  const request: EventSearchRequest = { server: 'files', beforeSeq: log.recent()[0]!.seq, limit: 500 };
  const seen: number[] = [];
  let bytesLeft = Number.POSITIVE_INFINITY;
  let pages = 0;
  for (let cursor: EventSearchRequest['cursor']; ; pages++) {
    const page = await searchEvents({ ...request, cursor }, { segments, name: 'events', daily: true, isEvent, maxBytes: 20 * 1024 });
    expect(page.bytesLeft).toBeLessThan(bytesLeft);
    // About the budget, never the whole log: a chunk past it at most.
    expect(bytesLeft === Number.POSITIVE_INFINITY || bytesLeft - page.bytesLeft <= 20 * 1024 + 256 * 1024).toBe(true);
    bytesLeft = page.bytesLeft;
    seen.unshift(...page.events.map((e) => e.seq));
    if (!page.next) break;
    cursor = page.next;
  }
  expect(pages).toBeGreaterThan(3);
  expect(seen).toEqual(Array.from({ length: 19 }, (_, i) => (i + 1) * 100));
});

it('stops at the limit and continues just before the last event it gave', async () => {
  const log = await filledLog();
  const first = await log.search({ server: 'files', limit: 3 });
  expect(first.events.map((e) => e.seq)).toEqual([1800, 1900, 2000]);
  const second = await log.search({ server: 'files', limit: 3, cursor: first.next! });
  expect(second.events.map((e) => e.seq)).toEqual([1500, 1600, 1700]);
});

it('skips a torn or damaged line and refuses a cursor naming a file that is not an event file', async () => {
  const log = await filledLog();
  const segments = await listSegments(dir, 'events', true);
  await appendFile(segments.at(-1)!.path, '{"seq": 99999, "type": "log", "lev');
  const page = await log.search({ server: 'files', limit: 500 });
  expect(page.events).toHaveLength(20);
  const outside = await log.search({ server: 'files', cursor: { file: '../../etc/passwd', offset: 10 } });
  expect(outside).toMatchObject({ events: [], next: null });
});

it("matches text as the window does: a backslash or quote as typed, a finished call by its start's arguments", async () => {
  const log = new EventLog({ dir, retentionDays: 30, now: () => clock, ringSize: 50, maxFileBytes: 32 * 1024, validate: true });
  logs.push(log);
  const call = { callId: 'c1', server: 'fx', tool: 'search', exposedName: 'fx__search' };
  log.emit({ type: 'log', level: 'warn', server: 'files', message: 'cannot read C:\\Users\\me\\notes.txt' });
  log.emit({ type: 'call.started', level: 'info', ...call, argumentsPreview: '{"q":"zebra"}' });
  log.emit({ type: 'log', level: 'info', server: 'web', message: 'between' });
  log.emit({
    type: 'call.finished',
    level: 'info',
    ...call,
    durationMs: 5,
    isError: false,
    action: 'pass',
    bytesUpstream: 10,
    bytesDelivered: 10,
  } as never);
  await log.flush();
  const byPath = await log.search({ text: 'c:\\users\\ME' });
  expect(byPath.events.map((e) => e.seq)).toEqual([1]);
  const byQuote = await log.search({ text: '"q":"zebra"' });
  expect(byQuote.events.map((e) => e.type)).toEqual(['call.started', 'call.finished']);
  const byArgs = await log.search({ text: 'zebra' });
  expect(byArgs.events.map((e) => `${e.seq}:${e.type}`)).toEqual(['2:call.started', '4:call.finished']);
  // Not by the other filters: a finished call of another server is not returned with the start.
  expect((await log.search({ text: 'zebra', server: 'web' })).events).toEqual([]);
});
