/** Where compression requests go: any OpenAI-compatible chat-completions endpoint. */
export interface ChatEndpointConfig {
  /** e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`; a URL already ending in `/chat/completions` is used as is. */
  baseUrl: string;
  model: string;
  /** Sent as `Authorization: Bearer <key>` when set. */
  apiKey?: string | null;
  /** Whole-request timeout, response body included. Default 30 s. */
  timeoutMs?: number;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  messages: ChatMessage[];
  maxTokens: number;
  /** Left out of the request unless set: some models refuse any value but their default. */
  temperature?: number;
  /** Cancels the request (e.g. the tool call was cancelled); reported as kind 'aborted'. */
  signal?: AbortSignal;
}

export type ChatErrorKind = 'config' | 'timeout' | 'aborted' | 'network' | 'http' | 'bad_response';

export interface ChatError {
  kind: ChatErrorKind;
  /** One line for the log and the Settings view; never holds the API key. */
  message: string;
  /** HTTP status, for kind 'http'. */
  status?: number;
}

export interface ChatUsage {
  promptTokens: number | null;
  completionTokens: number | null;
}

export type ChatResult =
  | { ok: true; text: string; model: string; finishReason: string | null; usage: ChatUsage | null; latencyMs: number }
  | { ok: false; error: ChatError; latencyMs: number };

export interface ChatClient {
  readonly model: string;
  /** Sends one chat completion; every failure comes back as `{ok: false}`, nothing throws. */
  complete(request: ChatRequest): Promise<ChatResult>;
}

export interface ChatClientDeps {
  fetch?: typeof fetch;
  /** Monotonic milliseconds, for latency. */
  now?: () => number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
/** Replies are a few thousand tokens at most; anything far larger is not a chat completion. */
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** The chat-completions URL for a base URL, or an error message. */
export function completionsUrl(baseUrl: string): { url: string } | { error: string } {
  let parsed: URL;
  try {
    parsed = new URL(baseUrl.trim());
  } catch {
    return { error: `"${baseUrl}" is not a URL` };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { error: `the endpoint must be http or https, not ${parsed.protocol}` };
  if (parsed.username || parsed.password) return { error: 'put the API key in its own field, not in the URL' };
  const path = parsed.pathname.replace(/\/+$/, '');
  parsed.pathname = path.endsWith('/chat/completions') ? path : `${path}/chat/completions`;
  return { url: parsed.toString() };
}

/** A client for one endpoint and model. */
export function createChatClient(config: ChatEndpointConfig, deps: ChatClientDeps = {}): ChatClient {
  const doFetch = deps.fetch ?? globalThis.fetch;
  const now = deps.now ?? (() => performance.now());
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const target = completionsUrl(config.baseUrl);

  async function complete(request: ChatRequest): Promise<ChatResult> {
    const started = now();
    const fail = (kind: ChatErrorKind, message: string, status?: number): ChatResult => ({
      ok: false,
      error: status === undefined ? { kind, message } : { kind, message, status },
      latencyMs: Math.round(now() - started),
    });
    if ('error' in target) return fail('config', target.error);
    if (!config.model.trim()) return fail('config', 'no model is set');
    // A key hand-edited into the config with a line break or an invisible character: Node would refuse the
    // header with a message quoting it, and the failure would read as a network error.
    if (config.apiKey && !/^[\x21-\x7e]+$/.test(config.apiKey))
      return fail('config', 'the API key holds a space, a line break, an invisible or a non-ASCII character: paste the key again without it');
    if (!Number.isInteger(request.maxTokens) || request.maxTokens < 1)
      return fail('config', `max tokens must be a positive integer, not ${request.maxTokens}`);

    const body: Record<string, unknown> = { model: config.model, messages: request.messages, max_tokens: request.maxTokens, stream: false };
    if (request.temperature !== undefined) body.temperature = request.temperature;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = request.signal ? AbortSignal.any([timeout, request.signal]) : timeout;

    let status: number;
    let raw: string | null;
    try {
      const response = await doFetch(target.url, { method: 'POST', headers, body: JSON.stringify(body), signal });
      status = response.status;
      raw = await readLimited(response, MAX_RESPONSE_BYTES);
    } catch (error) {
      if (timeout.aborted) return fail('timeout', `no answer from the model within ${formatMs(timeoutMs)}`);
      if (request.signal?.aborted) return fail('aborted', 'the request was cancelled');
      return fail('network', `cannot reach ${new URL(target.url).host}: ${causeOf(error)}`);
    }

    if (status < 200 || status > 299) return fail('http', `the endpoint answered HTTP ${status}${raw === null ? '' : errorDetail(raw)}`, status);
    if (raw === null)
      return fail(
        'bad_response',
        `the response is too large (over ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB), so it is not a chat completion; check that the endpoint URL is an OpenAI-compatible chat API`,
      );
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      return fail('bad_response', `the response is not JSON: ${snippet(raw)}`);
    }
    const parsed = readCompletion(json);
    if ('error' in parsed) return fail('bad_response', parsed.error);
    return {
      ok: true,
      text: parsed.text,
      model: parsed.model ?? config.model,
      finishReason: parsed.finishReason,
      usage: parsed.usage,
      latencyMs: Math.round(now() - started),
    };
  }

  return { model: config.model, complete };
}

/**
 * The response body as text, or null when it is larger than `limit` bytes: a Content-Length over it is
 * refused before reading, and a body without one is read in pieces and dropped once past it (an endpoint
 * that never stops sending would otherwise fill the memory until the timeout).
 */
async function readLimited(response: Response, limit: number): Promise<string | null> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > limit) {
    await response.body?.cancel().catch(() => undefined);
    return null;
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    bytes += value.byteLength;
    if (bytes > limit) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    text += decoder.decode(value, { stream: true });
  }
}

interface Completion {
  text: string;
  model: string | null;
  finishReason: string | null;
  usage: ChatUsage | null;
}

/** The answer of a chat-completions response body (choices[0].message.content), or why there is none. */
export function readCompletion(json: unknown): Completion | { error: string } {
  if (!isRecord(json)) return { error: 'the response is not a JSON object' };
  if (isRecord(json.error)) return { error: `the endpoint reported an error: ${String(json.error.message ?? 'unknown')}` };
  const choice = Array.isArray(json.choices) ? json.choices[0] : undefined;
  if (!isRecord(choice) || !isRecord(choice.message)) return { error: 'the response has no choices[0].message' };
  const content = choice.message.content;
  let text: string;
  if (typeof content === 'string') text = content;
  else if (content === null || content === undefined) text = '';
  else if (Array.isArray(content)) {
    // Some compatible servers answer with content parts.
    text = content.map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : '')).join('');
  } else return { error: 'choices[0].message.content is not text' };
  const usage = isRecord(json.usage)
    ? { promptTokens: numberOrNull(json.usage.prompt_tokens), completionTokens: numberOrNull(json.usage.completion_tokens) }
    : null;
  return {
    text,
    model: typeof json.model === 'string' ? json.model : null,
    finishReason: typeof choice.finish_reason === 'string' ? choice.finish_reason : null,
    usage,
  };
}

function errorDetail(raw: string): string {
  try {
    const json = JSON.parse(raw) as unknown;
    if (isRecord(json) && isRecord(json.error) && typeof json.error.message === 'string') return `: ${oneLine(json.error.message)}`;
  } catch {
    // not JSON: show its start
  }
  return raw.trim() ? `: ${snippet(raw)}` : '';
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
}

function snippet(text: string): string {
  const line = oneLine(text);
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s` : `${ms} ms`;
}

function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
