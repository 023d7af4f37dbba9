/**
 * An events reader that reconnects gets what it missed before the live events: EventSource sends
 * Last-Event-ID on its own retries, the page's reopened stream asks with `?afterSeq=`. Each event comes
 * once and in order, also when events arrive while the missed ones are looked up; the stream's filter
 * applies; at most MAX_CATCH_UP_EVENTS (the newest) are sent; after a restart of the hub they come from
 * the event files.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CATCH_UP_EVENTS } from '../../electron/core/control/http-control.js';
import type { HubEvent } from '../../shared/events.js';
import { createTestAppHub, startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub({ version: 1, settings: { port: 0 }, servers: {} });
});
afterAll(async () => hub?.stop());

/** An open events stream: the events it has carried so far, and its close. */
interface Reader {
  events: HubEvent[];
  /** Resolves once the stream has carried an event with this seq (or later). */
  until(seq: number): Promise<void>;
  close(): Promise<void>;
}

async function open(origin: string, token: string, headers: Record<string, string> = {}, query = ''): Promise<Reader> {
  const res = await fetch(`${origin}/api/events${query}`, { headers: { authorization: `Bearer ${token}`, ...headers } });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const events: HubEvent[] = [];
  const waiters: Array<{ seq: number; resolve: () => void }> = [];
  let text = '';
  const pump = (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      text += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = text.indexOf('\n\n')) >= 0) {
        const block = text.slice(0, end);
        text = text.slice(end + 2);
        const data = /^data: (.*)$/m.exec(block);
        if (!data) continue;
        const event = JSON.parse(data[1]!) as HubEvent;
        expect(block).toContain(`id: ${event.seq}`);
        events.push(event);
        for (const w of waiters.filter((w) => event.seq >= w.seq)) w.resolve();
      }
    }
  })();
  return {
    events,
    until: (seq) => (events.some((e) => e.seq >= seq) ? Promise.resolve() : new Promise((resolve) => waiters.push({ seq, resolve }))),
    async close() {
      await reader.cancel().catch(() => undefined);
      await pump;
    },
  };
}

const log = (message: string) => hub.hub.emit({ type: 'log', level: 'info', message }).seq;

describe('catching up after a dropped events stream', () => {
  it('sends what was missed after Last-Event-ID or ?afterSeq=, then the live events, each once and in order', async () => {
    for (const ask of ['last-event-id', 'afterSeq'] as const) {
      const seen = log('seen');
      const missed = [1, 2, 3].map((i) => log(`missed ${i}`));
      const headers: Record<string, string> = ask === 'last-event-id' ? { 'last-event-id': String(seen) } : {};
      const reader = await open(hub.hub.endpoint.origin, hub.token, headers, ask === 'afterSeq' ? `?afterSeq=${seen}` : '');
      await reader.until(missed[2]!);
      const live = log('live');
      await reader.until(live);
      expect(reader.events.map((e) => e.seq)).toEqual([...missed, live]);
      await reader.close();
    }
  });

  it('a first connection (neither) gets only live events', async () => {
    log('before');
    const reader = await open(hub.hub.endpoint.origin, hub.token);
    const live = log('live only');
    await reader.until(live);
    expect(reader.events.map((e) => e.seq)).toEqual([live]);
    await reader.close();
  });

  it("prefers Last-Event-ID (EventSource's newest) to the ?afterSeq= of a reopened stream", async () => {
    const older = log('a');
    const newer = log('b');
    const after = log('c');
    const reader = await open(hub.hub.endpoint.origin, hub.token, { 'last-event-id': String(newer) }, `?afterSeq=${older}`);
    await reader.until(after);
    expect(reader.events.map((e) => e.seq)).toEqual([after]);
    await reader.close();
  });

  it('keeps the order and sends nothing twice when events arrive while the missed ones are looked up', async () => {
    const seen = log('seen');
    const missed = Array.from({ length: 50 }, (_, i) => log(`missed ${i}`));
    // Events emitted right after the request is sent land while the hub is reading the log.
    const reading = open(hub.hub.endpoint.origin, hub.token, { 'last-event-id': String(seen) });
    const during: number[] = [];
    for (let i = 0; i < 20; i++) {
      during.push(log(`during ${i}`));
      await new Promise((resolve) => setImmediate(resolve));
    }
    const reader = await reading;
    const last = log('after');
    await reader.until(last);
    expect(reader.events.map((e) => e.seq)).toEqual([...missed, ...during, last]);
    await reader.close();
  });

  it("applies the stream's filter to what it catches up on", async () => {
    const seen = log('seen');
    hub.hub.emit({ type: 'log', level: 'info', message: 'skipped', server: 'other' });
    const kept = hub.hub.emit({ type: 'log', level: 'info', message: 'kept', server: 'wanted' }).seq;
    const reader = await open(hub.hub.endpoint.origin, hub.token, { 'last-event-id': String(seen) }, '?server=wanted');
    await reader.until(kept);
    const live = hub.hub.emit({ type: 'log', level: 'info', message: 'live', server: 'wanted' }).seq;
    await reader.until(live);
    expect(reader.events.map((e) => e.seq)).toEqual([kept, live]);
    await reader.close();
  });

  it(`sends at most ${MAX_CATCH_UP_EVENTS} missed events, the newest`, async () => {
    const seen = log('seen');
    const missed = Array.from({ length: MAX_CATCH_UP_EVENTS + 200 }, (_, i) => log(`flood ${i}`));
    const reader = await open(hub.hub.endpoint.origin, hub.token, { 'last-event-id': String(seen) });
    await reader.until(missed.at(-1)!);
    const live = log('live');
    await reader.until(live);
    expect(reader.events.map((e) => e.seq)).toEqual([...missed.slice(-MAX_CATCH_UP_EVENTS), live]);
    await reader.close();
  });

  it('catches up from the event files after a restart of the hub', async () => {
    const seen = log('before the restart');
    const missed = [log('last words 1'), log('last words 2')];
    await hub.hub.stop();
    const again = await createTestAppHub(hub.dir);
    await again.hub.start();
    try {
      const started = again.hub.events.lastSeq;
      const reader = await open(again.hub.endpoint.origin, again.hub.token, { 'last-event-id': String(seen) });
      await reader.until(started);
      const seqs = reader.events.map((e) => e.seq);
      expect(seqs.slice(0, 2)).toEqual(missed);
      expect(seqs).toEqual([...new Set(seqs)].sort((a, b) => a - b));
      expect(seqs.at(-1)).toBe(started);
      await reader.close();
    } finally {
      await again.hub.stop();
    }
  });
});
