/**
 * "Load older events" looks for a page of new matches: events the hub answers again (a call's half can come
 * back in two parts of the files) are shown once and do not count towards the page.
 */
import { expect, it } from 'vitest';
import { OLDER_PAGE, OlderEvents } from '../../renderer/src/lib/older-events.svelte.js';
import type { Backend } from '../../renderer/src/lib/api.js';
import type { HubEvent } from '../../shared/events.js';
import type { EventSearchResult } from '../../shared/api-events.js';
import { FakeBackend } from './fake-backend.js';

const event = (seq: number): HubEvent => ({
  seq,
  time: new Date(seq * 1000).toISOString(),
  type: 'log',
  level: 'info',
  server: 'web',
  message: `fetched page ${seq}`,
});
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => event(from + i));

it('counts only events not found before towards a click’s page of older matches', async () => {
  const half = OLDER_PAGE / 2;
  // The newest part of the files, then a part that answers the same events again, then the oldest part.
  const parts: EventSearchResult[] = [
    { events: range(2 * half, 3 * half), next: { file: 'events-2.jsonl', offset: 100 }, bytesLeft: 200, bytesTotal: 300 },
    { events: range(2 * half, 3 * half), next: { file: 'events-1.jsonl', offset: 100 }, bytesLeft: 100, bytesTotal: 300 },
    { events: range(half, 2 * half), next: { file: 'events-1.jsonl', offset: 0 }, bytesLeft: 50, bytesTotal: 300 },
    { events: range(0, half), next: null, bytesLeft: 0, bytesTotal: 300 },
  ];
  const fake = new FakeBackend();
  let asked = 0;
  const backend = {
    call: async (method: string, req: unknown) =>
      method === 'events.search' ? { ok: true, value: parts[asked++] } : fake.call(method as never, req as never),
    subscribe: () => () => {},
    watchConnection: (fn: never) => fake.watchConnection(fn),
  } as unknown as Backend;
  const older = new OlderEvents(backend);
  const query = { server: 'web' };

  await older.load(query, 3 * half);
  // One click found a page of new matches, each once, oldest first.
  const seqs = older.eventsFor(query).map((e) => e.seq);
  expect(seqs).toEqual(range(half, 3 * half).map((e) => e.seq));
  expect(asked).toBe(3);
  expect(older.doneFor(query, 3 * half)).toBe(false);

  await older.load(query, 3 * half);
  expect(older.eventsFor(query)).toHaveLength(3 * half);
  expect(older.doneFor(query, 3 * half)).toBe(true);
});
