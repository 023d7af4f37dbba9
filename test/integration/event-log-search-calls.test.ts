/**
 * `events.search` returns calls as the Activity window shows them (s20): a call's start and its end come
 * together even when they lie in different parts of the files (each request reads a bounded part), and the
 * text matches the words a row reads ("spilled", "failed", "is ready"), not only the stored JSON.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../electron/core/log/event-log.js';
import { searchEvents } from '../../electron/core/log/event-search.js';
import { listSegments } from '../../electron/core/log/journal-files.js';
import type { HubEvent, HubEventInput } from '../../shared/events.js';
import type { EventSearchRequest, EventSearchResult } from '../../shared/api-events.js';

let dir: string;
let log: EventLog;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-event-search-calls-'));
  let clock = Date.parse('2026-03-10T12:00:00.000Z');
  log = new EventLog({ dir, retentionDays: 30, now: () => (clock += 1000), ringSize: 50, maxFileBytes: 32 * 1024, validate: true });
});
afterEach(async () => {
  await log.close();
  await rm(dir, { recursive: true, force: true });
});

const call = (id: string) => ({ callId: id, server: 'fx', tool: 'search', exposedName: 'fx__search', client: 'claude-code' });
const started = (id: string, args: string): HubEventInput => ({ type: 'call.started', level: 'info', ...call(id), argumentsPreview: args });
const finished = (id: string, action: 'pass' | 'spill' | 'error', error?: string): HubEventInput =>
  ({
    type: 'call.finished',
    level: action === 'error' ? 'warn' : 'info',
    ...call(id),
    durationMs: 1234,
    isError: action === 'error',
    action,
    bytesUpstream: 52_000,
    bytesDelivered: 900,
    tokensUpstream: 12_345,
    tokensDelivered: 250,
    ...(error ? { error } : {}),
  }) as HubEventInput;
/** About 80 KB of other events: more than two event files of 32 KB lie between what comes before and after. */
function filler(): void {
  for (let i = 0; i < 400; i++)
    log.emit({ type: 'log', level: 'info', server: 'web', message: `fetched page ${i} of the archive, nothing to report` });
}

/** Every page of a search that reads about one event file per request, newest first. */
async function pages(request: EventSearchRequest): Promise<EventSearchResult[]> {
  await log.flush();
  const segments = await listSegments(dir, 'events', true);
  const isEvent = (v: unknown): v is HubEvent => typeof v === 'object' && v !== null && typeof (v as HubEvent).seq === 'number';
  const out: EventSearchResult[] = [];
  for (let cursor: EventSearchRequest['cursor']; ;) {
    const page = await searchEvents({ ...request, cursor }, { segments, name: 'events', daily: true, isEvent, maxBytes: 20 * 1024 });
    out.push(page);
    if (!page.next) return out;
    cursor = page.next;
  }
}

/** The event file each seq is stored in. */
async function fileOf(seq: number): Promise<string> {
  for (const s of await listSegments(dir, 'events', true)) {
    if ((await readFile(s.path, 'utf8')).includes(`"seq":${seq},`)) return s.file;
  }
  throw new Error(`seq ${seq} not found`);
}

const tagged = (events: HubEvent[]) => events.map((e) => `${e.type}:${'callId' in e ? e.callId : ''}`);

it('a call found by its arguments comes with its end, read by an earlier request', async () => {
  const start = log.emit(started('c1', '{"q":"zebra"}'));
  filler();
  const end = log.emit(finished('c1', 'pass'));
  filler();
  await log.flush();
  expect(await fileOf(start.seq)).not.toBe(await fileOf(end.seq));
  const all = await pages({ text: 'zebra' });
  expect(all.length).toBeGreaterThan(3);
  const withCall = all.filter((p) => p.events.length > 0);
  // One page holds the call whole: the window shows one finished row, not a call that seems still running.
  expect(withCall.map((p) => tagged(p.events))).toEqual([['call.started:c1', 'call.finished:c1']]);
});

it("a call found by its end's text comes with its start, read by a later request", async () => {
  log.emit(started('c2', '{"q":"ant"}'));
  filler();
  log.emit(finished('c2', 'error', 'quota exceeded for this key'));
  filler();
  const withCall = (await pages({ text: 'QUOTA EXCEEDED' })).filter((p) => p.events.length > 0);
  expect(withCall.map((p) => tagged(p.events))).toEqual([['call.started:c2', 'call.finished:c2']]);
  // The details pane reads the start's arguments.
  expect((withCall[0]!.events[0] as Extract<HubEvent, { type: 'call.started' }>).argumentsPreview).toBe('{"q":"ant"}');
});

it('a start found by its own words is dropped when its end, read before, makes the row one that does not match', async () => {
  log.emit(started('c3', '{"q":"owl"}'));
  filler();
  log.emit(finished('c3', 'pass'));
  filler();
  // "called…" is the row of a call still running; this one finished, and its row reads "passed".
  const all = (await pages({ text: 'fx__search called by' })).flatMap((p) => p.events);
  expect(all).toEqual([]);
});

it('matches the words a row reads that the stored event does not hold', async () => {
  log.emit(started('s1', '{"q":"big"}'));
  log.emit(finished('s1', 'spill'));
  log.emit(started('p1', '{"q":"small"}'));
  log.emit(finished('p1', 'pass'));
  log.emit(started('e1', '{"q":"bad"}'));
  log.emit(finished('e1', 'error', 'upstream closed the connection'));
  log.emit({ type: 'upstream.status', level: 'info', server: 'fx', status: 'ready' });
  log.emit({
    type: 'session.opened',
    level: 'info',
    session: 's',
    client: 'claude-code',
    clientVersion: '1.2.0',
    transport: 'http',
  } as HubEventInput);
  log.emit({ type: 'log', level: 'warn', server: 'files', message: 'disk nearly full' });
  filler();
  const found = async (text: string) => tagged((await pages({ text })).flatMap((p) => p.events));
  expect(await found('spilled')).toEqual(['call.started:s1', 'call.finished:s1']);
  expect(await found('passed in 1.2 s')).toEqual(['call.started:p1', 'call.finished:p1']);
  expect(await found('failed in')).toEqual(['call.started:e1', 'call.finished:e1']);
  expect(await found('12.3K → 250 tokens')).toHaveLength(6);
  expect(await found('fx is ready')).toEqual(['upstream.status:']);
  expect(await found('connected over its local web address')).toEqual(['session.opened:']);
  expect(await found('files: disk')).toEqual(['log:']);
  // The other filters still apply to a row matched by its words.
  expect(tagged((await pages({ text: 'spilled', server: 'web' })).flatMap((p) => p.events))).toEqual([]);
});

it('a failed call found by its arguments under the Warning level comes whole when its start lies in a later part', async () => {
  log.emit(started('w1', '{"q":"zebra"}'));
  log.emit(started('w2', '{"q":"zebra"}'));
  log.emit(started('w3', '{"q":"horse"}'));
  filler();
  log.emit(finished('w1', 'error', 'boom'));
  log.emit(finished('w2', 'pass'));
  log.emit(finished('w3', 'error', 'boom'));
  filler();
  // The start is an Info event, below the level: the row is the failed end's (a warning), found by the start's arguments.
  const withCall = (await pages({ text: 'zebra', level: 'warn' })).filter((p) => p.events.length > 0);
  // w2 passed (its row is Info), w3's arguments do not hold the text.
  expect(withCall.map((p) => tagged(p.events))).toEqual([['call.started:w1', 'call.finished:w1']]);
});

it('a start below the level comes for a failed call the window holds, when its arguments make that row match', async () => {
  log.emit(started('h1', '{"q":"zebra"}'));
  filler();
  log.emit(started('h2', '{"q":"zebra"}'));
  log.emit(started('h3', '{"q":"zebra"}'));
  // The window holds these and what follows: its oldest event is h1's end.
  const oldestHeld = log.emit(finished('h1', 'error', 'boom'));
  log.emit(finished('h2', 'error', 'boom'));
  log.emit(finished('h3', 'pass'));
  filler();
  // The window finds its failed rows by the arguments of their starts only once these come.
  const found = (await pages({ text: 'zebra', level: 'warn', beforeSeq: oldestHeld.seq })).flatMap((p) => p.events);
  expect(tagged(found.sort((a, b) => a.seq - b.seq))).toEqual(['call.started:h1', 'call.started:h2']);
});
