/// <reference types="node" />
// The backend is the hub's real event log (Node), so this test, unlike the window's code, sees Node's types.
/**
 * "Load older events" finds what the window's own search finds (s20): the same words a row reads
 * ("spilled", "failed", "is ready", "12.3K → 250 tokens"), not only the stored event's text. One event log
 * is shown twice: by a window large enough to hold every event (the live search) and by a small one that
 * must ask the hub for them (the older-events search); both must show the same rows.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ActivityLog, EMPTY_FILTER } from '../../renderer/src/lib/activity.svelte.js';
import type { Backend } from '../../renderer/src/lib/api.js';
import { api, type MethodName } from '../../shared/api.js';
import type { HubEventInput } from '../../shared/events.js';
import { EventLog } from '../../electron/core/log/event-log.js';
import { summarize } from '../../renderer/src/lib/event-summary.js';
import { FakeBackend } from './fake-backend.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

function backendWith(events: EventLog): Backend {
  const fake = new FakeBackend();
  return {
    async call(method: MethodName, req: unknown) {
      if (method === 'events.query') return { ok: true, value: await events.query(api['events.query'].req.parse(req)) };
      if (method === 'events.search') return { ok: true, value: await events.search(api['events.search'].req.parse(req)) };
      return fake.call(method, req as never);
    },
    subscribe: (fn) => events.subscribe(fn),
    watchConnection: (fn) => fake.watchConnection(fn),
  } as Backend;
}

const call = (id: string) => ({ callId: id, server: 'fx', tool: 'search', exposedName: 'fx__search', client: 'claude-code' });
function finished(id: string, action: string, more: Record<string, unknown> = {}): HubEventInput {
  const base = { durationMs: 1234, isError: false, bytesUpstream: 52_000, bytesDelivered: 900, tokensUpstream: 12_345, tokensDelivered: 250 };
  return { type: 'call.finished', level: 'info', ...call(id), ...base, action, ...more } as HubEventInput;
}

/** Every kind of row, then enough other events that a small window holds none of them. */
const EVENTS: HubEventInput[] = [
  { type: 'session.opened', level: 'info', session: 's1', client: 'claude-code', clientVersion: '1.2.0', transport: 'http' },
  { type: 'upstream.status', level: 'info', server: 'fx', status: 'ready', tools: 3 },
  { type: 'upstream.status', level: 'warn', server: 'db', status: 'error', error: 'exited with code 1' },
  { type: 'upstream.stderr', level: 'info', server: 'db', line: 'listening on 5432' },
  { type: 'call.started', level: 'info', ...call('c1'), argumentsPreview: '{"q":"zebra"}' },
  finished('c1', 'spill', { handle: 'h1' }),
  { type: 'call.counted', level: 'info', ...call('c1'), tokensUpstream: 12_345, tokensDelivered: 250, tokensEstimated: false },
  { type: 'call.started', level: 'info', ...call('c2'), argumentsPreview: '{"q":"owl"}' },
  finished('c2', 'pass', { durationMs: 12, tokensUpstream: 40, tokensDelivered: 40 }),
  { type: 'call.started', level: 'info', ...call('c3'), argumentsPreview: '{"q":"ant"}' },
  finished('c3', 'error', { isError: true, level: 'warn', error: 'upstream closed the connection' }),
  { type: 'call.started', level: 'info', ...call('c4'), argumentsPreview: '{"q":"bee"}' },
  finished('c4', 'cache', { durationMs: 3, savedMs: 900 }),
  { type: 'call.started', level: 'info', ...call('c5'), argumentsPreview: '{"q":"still running"}' },
  { type: 'catalog.changed', level: 'info', tools: 12, resources: 1, prompts: 0 },
  { type: 'config.changed', level: 'info', what: 'compression turned on' },
  { type: 'tool.withheld', level: 'warn', server: 'fx', tool: 'search', oldDescription: 'a', newDescription: 'b', schemaDiff: [] },
  { type: 'session.closed', level: 'info', session: 's1', client: 'claude-code' },
  { type: 'log', level: 'warn', server: 'files', message: 'disk nearly full' },
] as HubEventInput[];

const WORDS = [
  'spilled',
  'passed in 12 ms',
  'failed in 1.2 s, 12.3k → 250 tokens: upstream closed',
  'answered from cache',
  '12.3k → 250 tokens',
  'called by claude-code',
  'zebra',
  'fx is ready',
  'db failed: exited',
  'db: listening',
  'claude-code 1.2.0 connected over its local web address',
  'disconnected',
  'tools changed: 12 tools, 1 resource',
  'settings changed',
  'held back until you approve',
  'files: disk',
  '12,345 tokens produced',
];

async function windowOn(events: EventLog, size: number): Promise<ActivityLog> {
  const log = new ActivityLog(backendWith(events), { schedule: (flush) => queueMicrotask(flush), initial: size, capacity: size });
  cleanups.push(log.start());
  await vi.waitFor(() => expect(log.loading).toBe(false));
  return log;
}

it('older events are found by the words their rows read, as the window finds the events it holds', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'spillway-older-rows-'));
  const events = new EventLog({ dir, retentionDays: 30, ringSize: 100, maxFileBytes: 16 * 1024, validate: true });
  cleanups.push(
    () => rm(dir, { recursive: true, force: true }),
    () => events.close(),
  );
  for (const e of EVENTS) events.emit(e);
  for (let i = 0; i < 300; i++) events.emit({ type: 'log', level: 'info', server: 'web', message: `fetched page ${i}` });
  await events.flush();
  const whole = await windowOn(events, 1000);
  const small = await windowOn(events, 50);
  expect(small.events[0]!.seq).toBeGreaterThan(EVENTS.length);

  for (const text of WORDS) {
    whole.filter = { ...EMPTY_FILTER, text };
    small.filter = { ...EMPTY_FILTER, text };
    const live = whole.visible.map((e) => `${e.seq} ${summarize(e)}`);
    expect(live.length, text).toBeGreaterThan(0);
    await small.loadOlder();
    expect(small.olderDone, text).toBe(true);
    expect(
      small.visible.map((e) => `${e.seq} ${summarize(e)}`),
      text,
    ).toEqual(live);
  }
});
