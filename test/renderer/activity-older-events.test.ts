/// <reference types="node" />
// The backend is the hub's real event log (Node), so this test, unlike the window's code, sees Node's types.
/**
 * Activity's filters reach events older than the window holds: "Load older events" has the hub search its
 * event files (a real EventLog on a temp folder answers events.query, events.search and the live stream)
 * and the matches show before the latest ones, with how far the search has come.
 */
import { afterEach, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
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
function backendWith(events: EventLog): Backend & { searches: unknown[]; gate?: Promise<void> } {
  const fake = new FakeBackend();
  const searches: unknown[] = [];
  const backend: Backend & { searches: unknown[]; gate?: Promise<void> } = {
    searches,
    async call(method: MethodName, req: unknown) {
      if (method === 'events.query') return { ok: true, value: await events.query(api['events.query'].req.parse(req)) };
      if (method === 'events.search') {
        searches.push(req);
        await backend.gate;
        return { ok: true, value: await events.search(api['events.search'].req.parse(req)) };
      }
      return fake.call(method, req as never);
    },
    subscribe: (fn) => events.subscribe(fn),
    watchConnection: (fn) => fake.watchConnection(fn),
  } as Backend & { searches: unknown[]; gate?: Promise<void> };
  return backend;
}

async function setup() {
  const dir = await mkdtemp(join(tmpdir(), 'spillway-activity-older-'));
  const events = new EventLog({ dir, retentionDays: 30, ringSize: 100, maxFileBytes: 16 * 1024 });
  cleanups.push(
    () => rm(dir, { recursive: true, force: true }),
    () => events.close(),
  );
  events.emit({ type: 'log', level: 'warn', server: 'files', message: 'the disk is nearly full' });
  for (let i = 0; i < 600; i++) events.emit({ type: 'log', level: 'info', server: 'web', message: `fetched page ${i}` });
  const backend = backendWith(events);
  const log = new ActivityLog(backend, { schedule: (flush) => queueMicrotask(flush), initial: 50, capacity: 100 });
  cleanups.push(log.start());
  render(ActivityView, { log, spill: new SpillPreviewState(backend), testHeight: 600 });
  await waitFor(() => expect(log.loading).toBe(false));
  return { log, backend, events };
}

const logRegion = () => within(screen.getByRole('region', { name: 'Live log' }));

it('finds an old event the filters cannot see in memory by searching the event files', async () => {
  const { log, backend } = await setup();
  await fireEvent.input(screen.getByRole('searchbox'), { target: { value: 'nearly full' } });
  expect(await screen.findByText('No events match these filters.')).toBeTruthy();
  expect(log.visible).toEqual([]);

  await fireEvent.click(screen.getByRole('button', { name: 'Load older events' }));
  expect(await logRegion().findByText(/the disk is nearly full/)).toBeTruthy();
  expect(await screen.findByText(/All older events searched: 1 older match/)).toBeTruthy();
  // Asked with the filters, below the oldest event the window holds.
  expect(backend.searches[0]).toMatchObject({ text: 'nearly full', beforeSeq: log.events[0]!.seq });

  // Other filters: what was found for the old ones is not shown, and the search can be made again.
  await fireEvent.input(screen.getByRole('searchbox'), { target: { value: 'fetched page 3' } });
  await waitFor(() => expect(logRegion().queryByText(/the disk is nearly full/)).toBeNull());
  expect(screen.getByRole('button', { name: 'Load older events' })).toBeTruthy();
});

it('filters older events by server and level too, and shows progress while it searches', async () => {
  const { log, backend } = await setup();
  await fireEvent.change(screen.getAllByRole('combobox')[3]!, { target: { value: 'warn' } });
  await waitFor(() => expect(log.filter.level).toBe('warn'));
  let open!: () => void;
  backend.gate = new Promise((resolve) => (open = resolve));
  await fireEvent.click(screen.getByRole('button', { name: 'Load older events' }));
  expect(await screen.findByRole('progressbar', { name: 'Searching older events' })).toBeTruthy();
  expect(screen.getByText(/Searching older events…/).textContent).toMatch(/0 matches so far/);
  expect(screen.getByRole('button', { name: 'Stop' })).toBeTruthy();
  open();
  expect(await logRegion().findByText(/the disk is nearly full/)).toBeTruthy();
  expect(log.visible.map((e) => e.level)).toEqual(['warn']);
  expect(log.older.bytesTotal).toBeGreaterThan(16 * 1024);
  expect(log.older.progress).toBe(1);
});
