/**
 * The MCP Registry read API, v0.1: `GET /v0.1/servers` (search, cursor, limit, version=latest) and
 * `GET /v0.1/servers/{name}/versions/{version}`. Every failure becomes a RegistryError whose message says,
 * in plain words, what went wrong and what to do next; the raw answer bodies are returned for the caller
 * to validate and cache.
 */
import { networkReason } from './network-reason.js';

export const DEFAULT_REGISTRY_URL = 'https://registry.modelcontextprotocol.io';
const DEFAULT_TIMEOUT_MS = 15_000;
/** More than any registry page needs (a full page of 100 entries is well under 1 MB): a bigger answer is not read. */
const DEFAULT_MAX_ANSWER_BYTES = 10 * 1024 * 1024;

/**
 * `unreachable`: no answer (network, timeout) or a broken one (5xx, not the API): cached results may stand
 * in. `not_found` and `refused`: the registry answered and said no.
 */
export type RegistryErrorKind = 'unreachable' | 'not_found' | 'refused';

export class RegistryError extends Error {
  constructor(
    readonly kind: RegistryErrorKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'RegistryError';
  }
}

export interface RegistryClientOptions {
  baseUrl: string;
  /** How long a request may take, its whole answer read. */
  timeoutMs?: number;
  /** The largest answer read (10 MB by default). */
  maxAnswerBytes?: number;
  /** Injected in tests; the global fetch otherwise. */
  fetch?: typeof fetch;
  /** The clock a Retry-After date is read against (tests); Date.now otherwise. */
  now?: () => number;
}

export interface ListQuery {
  search?: string;
  cursor?: string;
  limit?: number;
}

/** The settings hint every "could not reach" message ends with. */
const CHECK_SETTINGS = 'Check your internet connection and the registry address in Settings, then try again.';

export class RegistryClient {
  readonly #base: URL;
  readonly #timeoutMs: number;
  readonly #maxBytes: number;
  readonly #fetch: typeof fetch;
  readonly #now: () => number;

  constructor(options: RegistryClientOptions) {
    // A base with a path (a sub-registry behind a prefix) keeps it: `new URL('v0.1/…', base/)`.
    this.#base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#maxBytes = options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
    this.#fetch = options.fetch ?? fetch;
    this.#now = options.now ?? Date.now;
  }

  /** The URL of one list page (also the cache key of its answer). */
  listUrl(query: ListQuery): string {
    const url = new URL('v0.1/servers', this.#base);
    if (query.search) url.searchParams.set('search', query.search);
    if (query.cursor) url.searchParams.set('cursor', query.cursor);
    if (query.limit) url.searchParams.set('limit', String(query.limit));
    url.searchParams.set('version', 'latest');
    return url.href;
  }

  /** The URL of every version of one server. */
  versionsUrl(name: string): string {
    return new URL(`v0.1/servers/${encodeURIComponent(name)}/versions`, this.#base).href;
  }

  /** The URL of one version of one server (`latest` for the newest); the name is URL-encoded (`/` → `%2F`). */
  versionUrl(name: string, version = 'latest'): string {
    return new URL(`v0.1/servers/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}`, this.#base).href;
  }

  /** GETs a registry URL and returns its JSON body; throws RegistryError. */
  async getJson(url: string, what: string): Promise<unknown> {
    const origin = this.#base.origin;
    const timedOut = () =>
      new RegistryError(
        'unreachable',
        `The registry at ${origin} did not answer within ${Math.round(this.#timeoutMs / 1000)} seconds. ${CHECK_SETTINGS}`,
      );
    // One deadline for the headers and the whole body: an answer that drips forever ends too.
    const signal = AbortSignal.timeout(this.#timeoutMs);
    let res: Response;
    try {
      res = await this.#fetch(url, { headers: { accept: 'application/json' }, signal });
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      if (e.name === 'TimeoutError' || e.name === 'AbortError') throw timedOut();
      throw new RegistryError('unreachable', `Could not reach the registry at ${origin}${networkReason(e.cause?.code)}. ${CHECK_SETTINGS}`);
    }
    const body = await readCapped(res, this.#maxBytes);
    if (body === 'too-large') {
      throw new RegistryError(
        'unreachable',
        `The registry at ${origin} sent an answer larger than ${Math.round(this.#maxBytes / 1024 / 1024)} MB, far more than a registry page holds, so Spillway stopped reading it. Check the registry address in Settings.`,
        res.status,
      );
    }
    if (body === 'timed-out' || (body === 'failed' && signal.aborted)) throw timedOut();
    if (res.status === 429 || res.status === 408) throw busyError(res.status, res.headers.get('retry-after'), origin, this.#now());
    if (!res.ok) throw answerError(res.status, body === 'failed' ? undefined : problemDetail(body.text), origin, what);
    if (body === 'failed') {
      throw new RegistryError('unreachable', `The registry at ${origin} broke off its answer. ${CHECK_SETTINGS}`, res.status);
    }
    try {
      return JSON.parse(body.text);
    } catch {
      throw new RegistryError(
        'unreachable',
        `The address ${origin} answered, but not as an MCP Registry does. Check the registry address in Settings.`,
        res.status,
      );
    }
  }
}

/**
 * An answer's body as text, read up to `max` bytes (never more is held: the rest is cancelled), or why
 * it could not be read: too large, the deadline passed while reading, or the connection broke.
 */
async function readCapped(res: Response, max: number): Promise<{ text: string } | 'too-large' | 'timed-out' | 'failed'> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > max) {
    await res.body?.cancel().catch(() => undefined);
    return 'too-large';
  }
  if (!res.body) return { text: '' };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > max) {
        await reader.cancel().catch(() => undefined);
        return 'too-large';
      }
      chunks.push(value);
    }
  } catch (err) {
    const name = (err as Error | undefined)?.name;
    return name === 'TimeoutError' || name === 'AbortError' ? 'timed-out' : 'failed';
  }
  return { text: new TextDecoder().decode(Buffer.concat(chunks)) };
}

/** The `detail` (or `title`) of an RFC 9457 problem answer, if the body is one. */
function problemDetail(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { detail?: unknown; title?: unknown };
    const detail = typeof body.detail === 'string' ? body.detail : typeof body.title === 'string' ? body.title : undefined;
    return detail?.slice(0, 300);
  } catch {
    return undefined;
  }
}

/**
 * "Try again in a minute", or in the time the registry's Retry-After (seconds, or an HTTP date) asks for,
 * rounded up to whole seconds or minutes.
 */
export function retryWords(retryAfter: string | null, now: number): string {
  const value = retryAfter?.trim() ?? '';
  const seconds = /^\d+$/.test(value) ? Number(value) : Number.isNaN(Date.parse(value)) ? undefined : (Date.parse(value) - now) / 1000;
  if (seconds === undefined || seconds > 24 * 3600) return 'Try again in a minute.';
  if (seconds <= 1) return 'Try again now.';
  if (seconds < 60) return `Try again in ${Math.ceil(seconds)} seconds.`;
  if (seconds < 90) return 'Try again in a minute.';
  return `Try again in ${Math.ceil(seconds / 60)} minutes.`;
}

/**
 * Too many requests (429), or a request the registry gave up waiting for (408): the registry is there
 * but busy, so the answers kept from earlier (or the built-in list) stand in, as when it cannot be reached.
 */
function busyError(status: number, retryAfter: string | null, origin: string, now: number): RegistryError {
  const what = status === 429 ? 'too many requests' : 'it gave up waiting for the request';
  return new RegistryError('unreachable', `The registry at ${origin} is busy (${what}, HTTP ${status}). ${retryWords(retryAfter, now)}`, status);
}

function answerError(status: number, detail: string | undefined, origin: string, what: string): RegistryError {
  const said = detail ? ` It said: "${detail}".` : '';
  if (status === 404 && detail?.startsWith('Endpoint not found')) {
    return new RegistryError(
      'refused',
      `The address ${origin} does not serve the MCP Registry API (v0.1). Check the registry address in Settings.`,
      status,
    );
  }
  if (status === 404) return new RegistryError('not_found', `The registry has no ${what}. It may have been removed; search again.`, status);
  if (status >= 500) {
    return new RegistryError(
      'unreachable',
      `The registry at ${origin} is having trouble (HTTP ${status}).${said} Try again in a few minutes.`,
      status,
    );
  }
  if (status === 401 || status === 403) {
    return new RegistryError(
      'refused',
      `The registry at ${origin} refused access (HTTP ${status}).${said} Check the registry address in Settings.`,
      status,
    );
  }
  return new RegistryError('refused', `The registry at ${origin} refused the request for ${what} (HTTP ${status}).${said}`, status);
}
