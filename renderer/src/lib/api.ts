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

/** Where the page keeps the token it was opened with: sessionStorage is per origin (so per port) and per tab. */
export const TOKEN_STORAGE_KEY = 'spillway.token';

/** What of the page the token is read from and kept in. */
export type PageParts = Partial<Pick<Window, 'location' | 'history' | 'sessionStorage'>>;

/** The page's sessionStorage, when the browser lets it use it. */
function pageStorage(win: PageParts): Storage | undefined {
  try {
    return win.sessionStorage;
  } catch {
    return undefined;
  }
}

/** The address part `params` stands for, without its token: `?rest`, or nothing when only the token was there. */
function withoutToken(params: URLSearchParams, mark: '?' | '#'): string {
  params.delete('token');
  const rest = params.toString();
  return rest ? `${mark}${rest}` : '';
}

/**
 * The token this page was opened with. Spillway prints the link as `/?token=<token>` (`#token=` works too):
 * the token is taken from the address, cleared from the address bar, and kept in sessionStorage, so a reload
 * keeps working and a copied address carries no token. A tab opened from the link has it in its own address.
 * Undefined when the page has none.
 */
export function takePageToken(win: PageParts): string | undefined {
  const storage = pageStorage(win);
  const location = win.location;
  if (!location) return storage?.getItem(TOKEN_STORAGE_KEY) || undefined;
  const search = new URLSearchParams(location.search);
  const hash = new URLSearchParams(location.hash.replace(/^#/, ''));
  const inSearch = search.get('token');
  const inHash = hash.get('token');
  const fromAddress = inHash ?? inSearch;
  if (fromAddress === null) return storage?.getItem(TOKEN_STORAGE_KEY) || undefined;
  try {
    storage?.setItem(TOKEN_STORAGE_KEY, fromAddress);
  } catch {
    // Storage full or refused: the token still works until the page is reloaded.
  }
  const query = inSearch === null ? location.search : withoutToken(search, '?');
  const fragment = inHash === null ? location.hash : withoutToken(hash, '#');
  win.history?.replaceState(win.history.state, '', `${location.pathname}${query}${fragment}`);
  return fromAddress || undefined;
}

/** What a call says when the page has no token, or the hub refused the one it has. */
export const NOT_SIGNED_IN_MESSAGE =
  'This page is not signed in. Open the link Spillway printed when it started (it carries the token), or run `spillway token` and open this address with ?token=<the token> after it.';

/** The part of an EventSource the HTTP backend uses (a test can pass its own). */
export interface EventStream {
  readonly readyState: number;
  onopen: ((event: Event) => unknown) | null;
  onmessage: ((event: MessageEvent) => unknown) | null;
  onerror: ((event: Event) => unknown) | null;
  close(): void;
}

export interface HttpBackendOptions {
  /** Base of the API, relative to the page: './api/'. */
  base?: string;
  /**
   * The hub's token, sent as `Authorization: Bearer` with every call and as `?token=` on the events URL
   * (EventSource cannot set headers).
   */
  token?: string;
  fetch?: typeof fetch;
  EventSource?: new (url: string) => EventStream;
  /** Delay before reopening an event stream the server closed (ms); doubles up to 30 s. */
  retryMs?: number;
  setTimeout?: (fn: () => void, ms: number) => unknown;
  clearTimeout?: (handle: unknown) => void;
}

/** The headless transport: POST <base><method> with JSON, and server-sent events from <base>events. */
export function createHttpBackend(options: HttpBackendOptions = {}): Backend {
  const base = options.base ?? './api/';
  const token = options.token;
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  // Looked up lazily: a page that never subscribes does not need EventSource.
  const Source = options.EventSource ?? globalThis.EventSource;
  const retryMs = options.retryMs ?? 1000;
  const later = options.setTimeout ?? ((fn, ms) => setTimeout(fn, ms));
  const cancel = options.clearTimeout ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));

  const connection = new ConnectionSignal();
  const events = new EventFanout((emit) => {
    let source: EventStream | undefined;
    let timer: unknown;
    let delay = retryMs;
    let lastSeq: number | undefined;
    let closed = false;
    const connect = () => {
      // After a reopen, ask only for what was missed (EventSource's own retries send Last-Event-ID instead).
      const query = new URLSearchParams();
      if (lastSeq !== undefined) query.set('afterSeq', String(lastSeq));
      if (token !== undefined) query.set('token', token);
      const search = query.toString();
      source = new Source(search ? `${base}events?${search}` : `${base}events`);
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
        const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
        if (token !== undefined) headers.authorization = `Bearer ${token}`;
        // No cookies: the token in the header is the page's only credential.
        response = await doFetch(`${base}${method}`, { method: 'POST', headers, body: JSON.stringify(req), credentials: 'omit' });
      } catch {
        return failure('unavailable', UNREACHABLE_MESSAGE);
      }
      if (response.status === 401) return failure('unauthorized', NOT_SIGNED_IN_MESSAGE);
      let body: unknown;
      try {
        body = await response.json();
      } catch {
        if (response.status === 403) return failure('unauthorized', NOT_SIGNED_IN_MESSAGE);
        if (response.status === 404) return failure('not_found', `This Spillway does not offer ${method} yet.`);
        return failure('internal', `Spillway answered ${method} with HTTP ${response.status} and no result.`);
      }
      return parseResult(method, body);
    },
    subscribe: (fn) => events.subscribe(fn),
    watchConnection: (fn) => connection.watch(fn),
  };
}

/**
 * The backend of a page opened without the token (main.ts shows only how to sign in then): every call says
 * how to sign in, and no event stream opens (the hub would refuse it, which would read as the hub not running).
 */
export const signedOutBackend: Backend = {
  call: async () => failure('unauthorized', NOT_SIGNED_IN_MESSAGE),
  subscribe: () => () => undefined,
  watchConnection: () => () => undefined,
};

/**
 * Picks IPC inside the desktop app (the preload defined window.spillway), HTTP everywhere else, with the
 * token the page was opened with.
 */
export function createBackend(win: Pick<Window, 'spillway'> & PageParts = window): Backend {
  if (win.spillway) return createIpcBackend(win.spillway);
  const token = takePageToken(win);
  return token === undefined ? signedOutBackend : createHttpBackend({ token });
}
