/**
 * The renderer's only way to reach the app: the control contract from shared/api.ts over Electron IPC
 * (window.spillway, from the preload) or over HTTP + SSE (the headless hub serving this page).
 * Both ends parse with the contract's zod schemas; errors arrive as results, never as throws.
 */
import { api, ApiErrorSchema, isMethodName, PushedEventSchema } from '../../../shared/api.js';
import type { ApiErrorCode, ApiResult, MethodName, Req, Res } from '../../../shared/api.js';
import { describeZodError } from '../../../shared/config.js';
import type { HubEvent } from '../../../shared/events.js';

export type { ApiResult, ApiErrorCode, MethodName, Req, Res, HubEvent };

/** One failed result, as views show it next to the control that caused it. */
export type ApiFailure = Extract<ApiResult<unknown>, { ok: false }>;

/** The two transports of the contract, behind one interface (GitButler's IBackend shape). */
export interface Backend {
  call<M extends MethodName>(method: M, req: Req<M>): Promise<ApiResult<Res<M>>>;
  /** Receives every pushed hub event; returns the unsubscribe. */
  subscribe(fn: (e: HubEvent) => void): () => void;
  /**
   * Told `false` as soon as the hub stops answering (its event stream dropped) and `true` once it is back;
   * never told anything while it stays up. Returns the unsubscribe.
   */
  watchConnection(fn: (connected: boolean) => void): () => void;
}

/** What the Electron preload exposes on window.spillway (and nothing else). */
export interface SpillwayBridge {
  call(method: string, req: unknown): Promise<unknown>;
  onEvent(fn: (event: unknown) => void): () => void;
}

declare global {
  interface Window {
    spillway?: SpillwayBridge;
  }
}

/** Whether the contract this renderer was built with has `name` — views use it to degrade gracefully. */
export function hasMethod(name: string): name is MethodName {
  return isMethodName(name);
}

/** Whether any method of an area (`clients`, `savings`, `policies`) is in the contract. */
export function hasArea(area: string): boolean {
  return Object.keys(api).some((name) => name.startsWith(`${area}.`));
}

/**
 * What a call says when the hub did not answer at all (the browser's own "Failed to fetch" means nothing to a
 * user). Exported so states can drop such an error once the hub answers again.
 */
export const UNREACHABLE_MESSAGE = 'Cannot reach Spillway. Check that it is running; this window reconnects by itself.';

/** Whether a failure is the hub not answering, rather than an answer from it. */
export function isUnreachable(result: ApiFailure | undefined): boolean {
  return result?.code === 'unavailable' && result.message === UNREACHABLE_MESSAGE;
}

function failure(code: ApiErrorCode, message: string, field?: string): ApiFailure {
  return field === undefined ? { ok: false, code, message } : { ok: false, code, message, field };
}

/** Checks the request before it leaves, so an invalid input is refused at the control with its field. */
function checkRequest<M extends MethodName>(method: M, req: Req<M>): ApiFailure | undefined {
  const parsed = api[method].req.safeParse(req);
  if (parsed.success) return undefined;
  const { field, message } = describeZodError(parsed.error);
  return failure('invalid', message, field);
}

/** Parses whatever the transport returned into a typed ApiResult of `method`. */
export function parseResult<M extends MethodName>(method: M, raw: unknown): ApiResult<Res<M>> {
  if (raw !== null && typeof raw === 'object' && (raw as { ok?: unknown }).ok === true) {
    const value = api[method].res.safeParse((raw as { value?: unknown }).value);
    if (value.success) return { ok: true, value: value.data as Res<M> };
    const { message } = describeZodError(value.error);
    return failure('internal', `The app answered ${method} in an unexpected form (${message}).`);
  }
  const err = ApiErrorSchema.safeParse(raw);
  if (err.success) return err.data;
  return failure('internal', `The app answered ${method} with something that is not a result.`);
}

/** Parses one pushed event; malformed ones are dropped rather than breaking the log. */
export function parseEvent(raw: unknown): HubEvent | undefined {
  const parsed = PushedEventSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

/** Fans one source of events out to many subscribers, opening the source on first use. */
class EventFanout {
  #subscribers = new Set<(e: HubEvent) => void>();
  #close: (() => void) | undefined;

  constructor(private readonly open: (emit: (e: HubEvent) => void) => () => void) {}

  subscribe(fn: (e: HubEvent) => void): () => void {
    this.#subscribers.add(fn);
    this.#close ??= this.open((event) => {
      for (const s of [...this.#subscribers]) s(event);
    });
    return () => {
      this.#subscribers.delete(fn);
      if (this.#subscribers.size === 0 && this.#close) {
        this.#close();
        this.#close = undefined;
      }
    };
  }
}

/** A yes/no that tells its watchers only when it changes. */
class ConnectionSignal {
  #connected = true;
  #watchers = new Set<(connected: boolean) => void>();

  set(connected: boolean): void {
    if (connected === this.#connected) return;
    this.#connected = connected;
    for (const w of [...this.#watchers]) w(connected);
  }

  watch(fn: (connected: boolean) => void): () => void {
    this.#watchers.add(fn);
    return () => {
      this.#watchers.delete(fn);
    };
  }
}

/** The desktop transport: the contract over the preload's window.spillway. */
export function createIpcBackend(bridge: SpillwayBridge): Backend {
  const events = new EventFanout((emit) =>
    bridge.onEvent((raw) => {
      const event = parseEvent(raw);
      if (event) emit(event);
    }),
  );
  return {
    async call(method, req) {
      const refused = checkRequest(method, req);
      if (refused) return refused;
      try {
        return parseResult(method, await bridge.call(method, req));
      } catch (err) {
        // Across IPC a thrown error keeps only its message; the handler should have returned a result.
        return failure('internal', err instanceof Error ? err.message : String(err));
      }
    },
    subscribe: (fn) => events.subscribe(fn),
    // The hub lives in the app's own main process: this window cannot outlive it.
    watchConnection: () => () => undefined,
  };
}

export interface HttpBackendOptions {
  /** Base of the API, relative to the page: './api/'. */
  base?: string;
  fetch?: typeof fetch;
  EventSource?: typeof EventSource;
  /** Delay before reopening an event stream the server closed (ms); doubles up to 30 s. */
  retryMs?: number;
  setTimeout?: (fn: () => void, ms: number) => unknown;
  clearTimeout?: (handle: unknown) => void;
}

/** The headless transport: POST <base><method> with JSON, and server-sent events from <base>events. */
export function createHttpBackend(options: HttpBackendOptions = {}): Backend {
  const base = options.base ?? './api/';
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  // Looked up lazily: a page that never subscribes does not need EventSource.
  const Source = options.EventSource ?? globalThis.EventSource;
  const retryMs = options.retryMs ?? 1000;
  const later = options.setTimeout ?? ((fn, ms) => setTimeout(fn, ms));
  const cancel = options.clearTimeout ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));

  const connection = new ConnectionSignal();
  const events = new EventFanout((emit) => {
    let source: EventSource | undefined;
    let timer: unknown;
    let delay = retryMs;
    let lastSeq: number | undefined;
    let closed = false;
    const connect = () => {
      // After a reopen, ask only for what was missed (EventSource's own retries send Last-Event-ID instead).
      const url = lastSeq === undefined ? `${base}events` : `${base}events?afterSeq=${lastSeq}`;
      source = new Source(url);
      source.onopen = () => {
        delay = retryMs;
        connection.set(true);
      };
      source.onmessage = (message: MessageEvent) => {
        let raw: unknown;
        try {
          raw = JSON.parse(String(message.data));
        } catch {
          return;
        }
        const event = parseEvent(raw);
        if (!event) return;
        lastSeq = event.seq;
        emit(event);
      };
      source.onerror = () => {
        if (closed || !source) return;
        // The stream dropped (the hub stopped) or could not open: the hub is not answering right now.
        if (source.readyState !== 1) connection.set(false);
        // EventSource retries by itself unless the server refused the stream (readyState CLOSED).
        if (source.readyState !== 2) return;
        source.close();
        timer = later(() => {
          if (!closed) connect();
        }, delay);
        delay = Math.min(delay * 2, 30_000);
      };
    };
    connect();
    return () => {
      closed = true;
      if (timer !== undefined) cancel(timer);
      source?.close();
    };
  });

  return {
    async call(method, req) {
      const refused = checkRequest(method, req);
      if (refused) return refused;
      let response: Response;
      try {
        response = await doFetch(`${base}${method}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify(req),
          credentials: 'same-origin',
        });
      } catch {
        return failure('unavailable', UNREACHABLE_MESSAGE);
      }
      let body: unknown;
      try {
        body = await response.json();
      } catch {
        if (response.status === 401 || response.status === 403) {
          return failure('unauthorized', 'This page is not signed in: open the link Spillway printed again.');
        }
        if (response.status === 404) return failure('not_found', `This Spillway does not offer ${method} yet.`);
        return failure('internal', `Spillway answered ${method} with HTTP ${response.status} and no result.`);
      }
      return parseResult(method, body);
    },
    subscribe: (fn) => events.subscribe(fn),
    watchConnection: (fn) => connection.watch(fn),
  };
}

/** Picks IPC inside the desktop app (the preload defined window.spillway), HTTP everywhere else. */
export function createBackend(win: Pick<Window, 'spillway'> = window): Backend {
  return win.spillway ? createIpcBackend(win.spillway) : createHttpBackend();
}
