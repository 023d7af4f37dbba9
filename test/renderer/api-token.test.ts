/**
 * The browser page's credential (no cookie): the token comes from the address the page was opened with
 * (`?token=` or `#token=`), leaves the address bar, stays in the tab's sessionStorage for a reload, and
 * goes with every call as `Authorization: Bearer` and on the events URL as `?token=`. A page with no token
 * says how to sign in instead of calling the hub.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  createBackend,
  createHttpBackend,
  NOT_SIGNED_IN_MESSAGE,
  signedOutBackend,
  takePageToken,
  TOKEN_STORAGE_KEY,
  type EventStream,
} from '../../renderer/src/lib/api.js';

/** Puts the jsdom page at `path` (same origin), as if it had been opened there. */
function openAt(path: string): void {
  window.history.replaceState(null, '', path);
}

afterEach(() => {
  window.sessionStorage.clear();
  openAt('/');
});

describe('the token the page was opened with', () => {
  it('is taken from ?token=, cleared from the address bar (the rest kept) and kept for a reload', () => {
    openAt('/?token=abc%2B1&view=activity#top');
    expect(takePageToken(window)).toBe('abc+1');
    expect(window.location.pathname + window.location.search + window.location.hash).toBe('/?view=activity#top');
    expect(window.sessionStorage.getItem(TOKEN_STORAGE_KEY)).toBe('abc+1');
    // A reload: the address has no token any more.
    expect(takePageToken(window)).toBe('abc+1');
  });

  it('is taken from #token= as well, and a token in the address replaces the kept one', () => {
    window.sessionStorage.setItem(TOKEN_STORAGE_KEY, 'old');
    openAt('/#token=new');
    expect(takePageToken(window)).toBe('new');
    expect(window.location.href).not.toContain('token');
    expect(window.sessionStorage.getItem(TOKEN_STORAGE_KEY)).toBe('new');
  });

  it('is missing when neither the address nor the tab has one: calls say how to sign in, no stream opens', async () => {
    openAt('/');
    expect(takePageToken(window)).toBeUndefined();
    const backend = createBackend(window);
    expect(backend).toBe(signedOutBackend);
    expect(await backend.call('status', {})).toEqual({ ok: false, code: 'unauthorized', message: NOT_SIGNED_IN_MESSAGE });
    expect(NOT_SIGNED_IN_MESSAGE).toMatch(/spillway token/);
    const told: boolean[] = [];
    backend.watchConnection((up) => told.push(up));
    backend.subscribe(() => undefined)();
    expect(told).toEqual([]);
  });
});

/** An EventSource stand-in that records the streams opened; a test pushes events and refuses a stream. */
class RecordingStream implements EventStream {
  static opened: RecordingStream[] = [];
  readyState = 0;
  onopen: ((event: Event) => unknown) | null = null;
  onmessage: ((event: MessageEvent) => unknown) | null = null;
  onerror: ((event: Event) => unknown) | null = null;
  constructor(readonly url: string) {
    RecordingStream.opened.push(this);
  }
  send(seq: number) {
    const event = { type: 'log', level: 'info', message: `m${seq}`, seq, time: '2026-01-01T00:00:00.000Z' };
    this.onmessage?.(new MessageEvent('message', { data: JSON.stringify(event) }));
  }
  refuse() {
    this.readyState = 2;
    this.onerror?.(new Event('error'));
  }
  close() {
    this.readyState = 2;
  }
}

describe('the HTTP backend with a token', () => {
  it('sends it as Authorization: Bearer, with no cookies, and a 401 says how to sign in again', async () => {
    const seen: RequestInit[] = [];
    let status = 200;
    const backend = createHttpBackend({
      token: 'tok',
      fetch: async (_url, init) => {
        seen.push(init ?? {});
        return new Response(JSON.stringify(status === 200 ? { ok: true, value: [] } : { ok: false, code: 'unauthorized', message: 'x' }), { status });
      },
    });
    expect(await backend.call('sessions.list', {})).toEqual({ ok: true, value: [] });
    expect(new Headers(seen[0]!.headers).get('authorization')).toBe('Bearer tok');
    expect(seen[0]!.credentials).toBe('omit');
    status = 401;
    expect(await backend.call('sessions.list', {})).toEqual({ ok: false, code: 'unauthorized', message: NOT_SIGNED_IN_MESSAGE });
  });

  it('puts it on the events URL (EventSource cannot set headers), next to afterSeq after a reopen', () => {
    RecordingStream.opened = [];
    const timers: Array<() => void> = [];
    const backend = createHttpBackend({ token: 'a b', EventSource: RecordingStream, setTimeout: (fn) => timers.push(fn) });
    const stop = backend.subscribe(() => undefined);
    const first = RecordingStream.opened[0]!;
    expect(first.url).toBe('./api/events?token=a+b');
    first.send(3);
    first.refuse();
    timers[0]!();
    expect(RecordingStream.opened.map((s) => s.url)).toEqual(['./api/events?token=a+b', './api/events?afterSeq=3&token=a+b']);
    stop();
  });

  it('is what createBackend uses for a page opened with the link', async () => {
    openAt('/?token=from-link');
    const seen: RequestInit[] = [];
    const backend = createBackend(window);
    expect(window.location.search).toBe('');
    const original = globalThis.fetch;
    globalThis.fetch = async (_url, init) => {
      seen.push(init ?? {});
      return new Response(JSON.stringify({ ok: true, value: [] }));
    };
    try {
      await backend.call('sessions.list', {});
    } finally {
      globalThis.fetch = original;
    }
    expect(new Headers(seen[0]!.headers).get('authorization')).toBe('Bearer from-link');
  });
});
