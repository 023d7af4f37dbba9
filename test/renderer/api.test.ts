import { describe, expect, it } from 'vitest';
import { createBackend, createHttpBackend, createIpcBackend, type SpillwayBridge } from '../../renderer/src/lib/api.js';
import type { HubEvent } from '../../shared/events.js';

const logEvent = (seq: number): HubEvent => ({ type: 'log', level: 'info', message: `m${seq}`, seq, time: '2026-01-01T00:00:00.000Z' });

/** An EventSource the test drives: open, push messages, or refuse the stream. */
class ScriptedEventSource {
  static opened: ScriptedEventSource[] = [];
  readyState = 0;
  onopen: (() => void) | null = null;
  onmessage: ((m: MessageEvent) => void) | null = null;
  onerror: (() => void) | null = null;
  closed = false;
  constructor(readonly url: string) {
    ScriptedEventSource.opened.push(this);
  }
  send(data: unknown) {
    this.onmessage?.({ data: typeof data === 'string' ? data : JSON.stringify(data) } as MessageEvent);
  }
  refuse() {
    this.readyState = 2;
    this.onerror?.();
  }
  open() {
    this.readyState = 1;
    this.onopen?.();
  }
  /** The server went away: EventSource goes back to CONNECTING and retries by itself. */
  drop() {
    this.readyState = 0;
    this.onerror?.();
  }
  close() {
    this.closed = true;
    this.readyState = 2;
  }
}

function jsonResponse(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

describe('HTTP backend', () => {
  it('POSTs the request to ./api/<method> and parses the result with the contract', async () => {
    const seen: Array<{ url: string; init: RequestInit }> = [];
    const backend = createHttpBackend({
      fetch: async (url, init) => {
        seen.push({ url: String(url), init: init ?? {} });
        return jsonResponse({ ok: true, value: { removed: true } });
      },
    });
    expect(await backend.call('upstreams.remove', { id: 'files' })).toEqual({ ok: true, value: { removed: true } });
    expect(seen[0].url).toBe('./api/upstreams.remove');
    expect(seen[0].init.method).toBe('POST');
    expect(JSON.parse(String(seen[0].init.body))).toEqual({ id: 'files' });
  });

  it('turns every failure into a result: refused input, error results, bad shapes, no server, no session', async () => {
    let reply: () => Promise<Response> = async () => jsonResponse({ ok: false, code: 'conflict', field: 'port', message: 'in use' });
    const backend = createHttpBackend({ fetch: () => reply() });
    expect(await backend.call('upstreams.remove', { id: '' })).toMatchObject({ ok: false, code: 'invalid', field: 'id' });
    expect(await backend.call('settings.set', { port: 1 })).toEqual({ ok: false, code: 'conflict', field: 'port', message: 'in use' });
    reply = async () => jsonResponse({ ok: true, value: { removed: 'yes' } });
    expect(await backend.call('upstreams.remove', { id: 'a' })).toMatchObject({ ok: false, code: 'internal' });
    reply = async () => {
      throw new TypeError('Failed to fetch');
    };
    // Plain words and the next step, not the browser's "Failed to fetch".
    expect(await backend.call('status', {})).toEqual({
      ok: false,
      code: 'unavailable',
      message: 'Cannot reach Spillway. Check that it is running; this window reconnects by itself.',
    });
    reply = async () => new Response('no', { status: 401 });
    expect(await backend.call('status', {})).toMatchObject({ ok: false, code: 'unauthorized' });
  });

  it('streams events from ./api/events, drops malformed ones, and reopens a refused stream where it left off', async () => {
    ScriptedEventSource.opened = [];
    const timers: Array<() => void> = [];
    const backend = createHttpBackend({
      EventSource: ScriptedEventSource as unknown as typeof EventSource,
      setTimeout: (fn) => timers.push(fn),
    });
    const got: number[] = [];
    const unsubscribe = backend.subscribe((e) => got.push(e.seq));
    const second: number[] = [];
    const unsubscribeSecond = backend.subscribe((e) => second.push(e.seq));
    expect(ScriptedEventSource.opened).toHaveLength(1);
    const first = ScriptedEventSource.opened[0];
    expect(first.url).toBe('./api/events');
    first.send(logEvent(1));
    first.send('not json');
    first.send({ type: 'nonsense', seq: 2 });
    first.send(logEvent(3));
    expect(got).toEqual([1, 3]);
    expect(second).toEqual([1, 3]);

    first.refuse();
    expect(timers).toHaveLength(1);
    timers[0]();
    expect(ScriptedEventSource.opened[1].url).toBe('./api/events?afterSeq=3');

    unsubscribe();
    expect(ScriptedEventSource.opened[1].closed).toBe(false);
    unsubscribeSecond();
    expect(ScriptedEventSource.opened[1].closed).toBe(true);
  });

  it('tells its watchers when the stream drops and when it is back, once per change (issue 14, item 2)', () => {
    ScriptedEventSource.opened = [];
    const backend = createHttpBackend({ EventSource: ScriptedEventSource as unknown as typeof EventSource, setTimeout: () => 0 });
    const seen: boolean[] = [];
    const unwatch = backend.watchConnection((up) => seen.push(up));
    const stop = backend.subscribe(() => {});
    const source = ScriptedEventSource.opened[0];
    source.open();
    expect(seen).toEqual([]);
    source.drop();
    source.drop();
    expect(seen).toEqual([false]);
    source.open();
    expect(seen).toEqual([false, true]);
    source.refuse();
    expect(seen).toEqual([false, true, false]);
    unwatch();
    stop();
  });
});

describe('IPC backend', () => {
  it('calls window.spillway and validates what comes back', async () => {
    let listener: ((e: unknown) => void) | undefined;
    const bridge: SpillwayBridge = {
      call: async (method, req) => ({ ok: true, value: { id: (req as { id: string }).id, method } }),
      onEvent: (fn) => {
        listener = fn;
        return () => (listener = undefined);
      },
    };
    const backend = createIpcBackend(bridge);
    expect(await backend.call('upstreams.update', { id: 'a', config: { type: 'stdio', command: 'x' } })).toEqual({
      ok: true,
      value: { id: 'a' },
    });
    const got: HubEvent[] = [];
    const stop = backend.subscribe((e) => got.push(e));
    listener?.(logEvent(7));
    listener?.({ bogus: true });
    expect(got.map((e) => e.seq)).toEqual([7]);
    stop();
    expect(listener).toBeUndefined();
  });

  it('turns a thrown IPC error into a result', async () => {
    const backend = createIpcBackend({
      call: async () => {
        throw new Error('No handler registered for status');
      },
      onEvent: () => () => {},
    });
    expect(await backend.call('status', {})).toEqual({ ok: false, code: 'internal', message: 'No handler registered for status' });
  });

  it('is chosen when the preload exposed window.spillway', async () => {
    const bridge: SpillwayBridge = { call: async () => ({ ok: true, value: [] }), onEvent: () => () => {} };
    const backend = createBackend({ spillway: bridge });
    expect(await backend.call('sessions.list', {})).toEqual({ ok: true, value: [] });
  });
});
