/// <reference types="node" />
// The backend is the hub's real event log (Node), so this test, unlike the window's code, sees Node's types.
/**
 * The older events "Load older events" finds agree with the window: a call started before the window and
 * finished in it is one row, and the hub's search matches text as the window's filter does.
 */
import { afterEach, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ActivityView from '../../renderer/src/views/ActivityView.svelte';
import { ActivityLog } from '../../renderer/src/lib/activity.svelte.js';
import { SpillPreviewState } from '../../renderer/src/lib/spill-preview.svelte.js';
import type { Backend } from '../../renderer/src/lib/api.js';
import { api, type MethodName } from '../../shared/api.js';
import { EventLog } from '../../electron/core/log/event-log.js';
import { FakeBackend } from './fake-backend.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

/** The fake hub, with the event methods answered by a real event log. */
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

async function eventLog(): Promise<EventLog> {
  const dir = await mkdtemp(join(tmpdir(), 'spillway-older-consistency-'));
  const events = new EventLog({ dir, retentionDays: 30, ringSize: 100, maxFileBytes: 16 * 1024 });
  cleanups.push(
    () => rm(dir, { recursive: true, force: true }),
    () => events.close(),
  );
  return events;
}

async function show(events: EventLog): Promise<ActivityLog> {
  const backend = backendWith(events);
  const log = new ActivityLog(backend, { schedule: (flush) => queueMicrotask(flush), initial: 50, capacity: 100 });
  cleanups.push(log.start());
  render(ActivityView, { log, spill: new SpillPreviewState(backend), testHeight: 600 });
  await waitFor(() => expect(log.loading).toBe(false));
  return log;
}

function finish(events: EventLog, call: { callId: string; server: string; tool: string; exposedName: string }): void {
  events.emit({
    type: 'call.finished',
    level: 'info',
    ...call,
    durationMs: 5,
    isError: false,
    action: 'pass',
    bytesUpstream: 10,
    bytesDelivered: 10,
  } as never);
}

const rowsOf = (log: ActivityLog, callId: string): string[] => log.visible.filter((e) => 'callId' in e && e.callId === callId).map((e) => e.type);

it('a call started before the window and finished in it is one row, the finished one, after Load older events', async () => {
  const events = await eventLog();
  const call = { callId: 'c1', server: 'fx', tool: 'slow', exposedName: 'fx__slow' };
  for (let i = 0; i < 20; i++) events.emit({ type: 'log', level: 'info', server: 'fx', message: `old fx line ${i}` });
  events.emit({ type: 'call.started', level: 'info', ...call, argumentsPreview: '{"q":"x"}' });
  for (let i = 0; i < 60; i++) events.emit({ type: 'log', level: 'info', server: 'web', message: `fetched page ${i}` });
  finish(events, call);
  const log = await show(events);
  await fireEvent.change(screen.getAllByRole('combobox')[0]!, { target: { value: 'fx' } });
  await waitFor(() => expect(log.filter.server).toBe('fx'));
  await log.loadOlder();
  expect(log.visible.filter((e) => e.type === 'log')).toHaveLength(20);
  expect(rowsOf(log, 'c1')).toEqual(['call.finished']);
  // Its details still show the arguments its start (found older) carried.
  const finished = log.visible.find((e) => e.type === 'call.finished')!;
  log.select(finished.seq);
  expect(log.detail?.started?.argumentsPreview).toBe('{"q":"x"}');
});

it('a text with backslashes finds older events as it finds held ones', async () => {
  const events = await eventLog();
  events.emit({ type: 'log', level: 'warn', server: 'files', message: 'cannot read C:\\Users\\me\\notes.txt' });
  for (let i = 0; i < 80; i++) events.emit({ type: 'log', level: 'info', server: 'web', message: `fetched page ${i}` });
  events.emit({ type: 'log', level: 'warn', server: 'files', message: 'cannot read C:\\Users\\me\\todo.txt' });
  const log = await show(events);
  await fireEvent.input(screen.getByRole('searchbox'), { target: { value: 'c:\\users\\ME' } });
  await waitFor(() => expect(log.filter.text).toBe('c:\\users\\ME'));
  expect(log.visible.map((e) => (e.type === 'log' ? e.message : e.type))).toEqual(['cannot read C:\\Users\\me\\todo.txt']);
  await log.loadOlder();
  expect(log.olderDone).toBe(true);
  expect(log.visible.map((e) => (e.type === 'log' ? e.message : e.type))).toEqual([
    'cannot read C:\\Users\\me\\notes.txt',
    'cannot read C:\\Users\\me\\todo.txt',
  ]);
});

it("a finished call is found older by its start's arguments, as in the window, and shows as one finished row", async () => {
  const events = await eventLog();
  const old = { callId: 'c9', server: 'fx', tool: 'search', exposedName: 'fx__search' };
  events.emit({ type: 'call.started', level: 'info', ...old, argumentsPreview: '{"q":"zebra"}' });
  finish(events, old);
  for (let i = 0; i < 80; i++) events.emit({ type: 'log', level: 'info', server: 'web', message: `fetched page ${i}` });
  const recent = { ...old, callId: 'c10' };
  events.emit({ type: 'call.started', level: 'info', ...recent, argumentsPreview: '{"q":"zebra"}' });
  finish(events, recent);
  const log = await show(events);
  await fireEvent.input(screen.getByRole('searchbox'), { target: { value: 'zebra' } });
  await waitFor(() => expect(log.filter.text).toBe('zebra'));
  expect(rowsOf(log, 'c10')).toEqual(['call.finished']);
  await log.loadOlder();
  expect(log.olderDone).toBe(true);
  expect(rowsOf(log, 'c9')).toEqual(['call.finished']);
  expect(log.visible.map((e) => ('callId' in e ? e.callId : e.type))).toEqual(['c9', 'c10']);
});

it('events the window drops after a finished search are offered again by Load older events, each once', async () => {
  const events = await eventLog();
  for (let i = 0; i < 20; i++) events.emit({ type: 'log', level: 'info', server: 'fx', message: `old fx line ${i}` });
  for (let i = 0; i < 60; i++) events.emit({ type: 'log', level: 'info', server: 'web', message: `fetched page ${i}` });
  events.emit({ type: 'log', level: 'info', server: 'fx', message: 'held fx line' });
  const log = await show(events);
  await fireEvent.change(screen.getAllByRole('combobox')[0]!, { target: { value: 'fx' } });
  await waitFor(() => expect(log.filter.server).toBe('fx'));
  await log.loadOlder();
  expect(log.olderDone).toBe(true);
  expect(log.canLoadOlder).toBe(false);
  expect(log.visible).toHaveLength(21);
  // New events push the held fx line, and then new fx lines, out of the window (it holds 100).
  for (let i = 0; i < 10; i++) events.emit({ type: 'log', level: 'info', server: 'fx', message: `new fx line ${i}` });
  for (let i = 0; i < 150; i++) events.emit({ type: 'log', level: 'info', server: 'web', message: `flood ${i}` });
  await waitFor(() => expect(log.events.at(-1)).toMatchObject({ type: 'log', message: 'flood 149' }));
  expect(log.visible.filter((e) => e.type === 'log' && e.message === 'held fx line')).toEqual([]);
  expect(log.olderDone).toBe(false);
  expect(log.canLoadOlder).toBe(true);
  expect(screen.getByRole('button', { name: /load older events/i })).toBeTruthy();
  await log.loadOlder();
  const messages = log.visible.map((e) => (e.type === 'log' ? e.message : e.type));
  expect(messages).toEqual([
    ...Array.from({ length: 20 }, (_, i) => `old fx line ${i}`),
    'held fx line',
    ...Array.from({ length: 10 }, (_, i) => `new fx line ${i}`),
  ]);
  expect(log.olderDone).toBe(true);
});
