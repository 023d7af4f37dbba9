/** How a failed connect reads in a server's status: what went wrong, in words that point at the fix. */
import type { ServerConfig } from '../../../shared/config.js';
import { NoSignInOffered } from '../oauth/no-sign-in.js';
import type { ExitStatus } from './stdio-transport.js';
import { notFoundMessage, UpstreamStartError } from './start-error.js';
import { stderrSummary } from './stderr-tail.js';
import { cutAtWord } from '../text/word-cut.js';

/** What a connect waited for when it ran out of time: the transport's start, initialize, or a list request. */
export type ConnectStep = 'start' | 'initialize' | 'tools/list' | 'resources/list' | 'resources/templates/list' | 'prompts/list';

/** A connect that ran out of time; `step` names what did not answer. */
export class ConnectTimeoutError extends Error {
  override readonly name = 'ConnectTimeoutError';
  constructor(
    readonly step: ConnectStep,
    readonly ms: number,
  ) {
    super(`no answer to ${step} within ${ms} ms`);
  }
}

/** Longest piece of a server's own answer quoted in a status. */
const QUOTE_CHARS = 160;

const TLS_CODE = /^(EPROTO|ERR_SSL_|ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED|SELF_SIGNED_CERT)/;
/** An error code inside a message (the SSE transport keeps only the text of fetch's cause). */
const CODE_IN_TEXT =
  /\b(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ETIMEDOUT|EPROTO|ERR_SSL_\w+|ERR_TLS_\w+|CERT_\w+|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_\w+)\b/;

/** One readable sentence for a failed connect. */
export function describeConnectError(err: unknown, config: ServerConfig): string {
  const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const msg = e instanceof Error ? e.message : String(err);
  // Its own words already say what to do (and name no address that could hold a key).
  if (e instanceof UpstreamStartError || e instanceof NoSignInOffered) return msg;
  if (e instanceof ConnectTimeoutError) return timeoutMessage(e, config);
  if (config.type === 'stdio') {
    if ((e?.code ?? e?.cause?.code) === 'ENOENT') return notFoundMessage(config.command);
  } else {
    const network = networkMessage(e, msg, config.url, config.type);
    if (network) return network;
  }
  if (/Request timed out|timed out/i.test(msg)) return `the server did not answer in time (${msg})`;
  return msg.replace(/^MCP error -?\d+: /, '');
}

/** The lists a server sends after it started, in plain words. */
const LIST_WORDS: Record<string, string> = {
  'tools/list': 'list of tools',
  'prompts/list': 'list of prompts',
  'resources/list': 'list of resources',
  'resources/templates/list': 'list of resource templates',
};

function timeoutMessage(e: ConnectTimeoutError, config: ServerConfig): string {
  const within = e.ms < 1000 ? `${e.ms} ms` : `${Math.round(e.ms / 1000)} s`;
  if (e.step === 'start' && config.type === 'sse') {
    return `no MCP endpoint event from ${config.url} within ${within}: is this the SSE URL? (It often ends in /sse; check the type too: HTTP or SSE.)`;
  }
  if (e.step === 'start') return `the server did not start within ${within}`;
  if (e.step === 'initialize') return `the server did not finish starting within ${within} (it ran, but never answered Spillway)`;
  return `the server started but did not send its ${LIST_WORDS[e.step] ?? e.step} within ${within}`;
}

/** An HTTP or SSE failure: the network (no connection), or an answer that is not MCP. */
function networkMessage(
  e: NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException },
  msg: string,
  url: string,
  type: 'http' | 'sse',
): string | undefined {
  const code = e?.cause?.code ?? (typeof e?.code === 'string' ? e.code : undefined) ?? CODE_IN_TEXT.exec(msg)?.[1];
  const fetchFailed = /fetch failed/.test(msg);
  if (code === 'ECONNREFUSED') return `cannot reach ${url} (connection refused): is the server running?`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `cannot find the host "${hostOf(url)}" (${code}); check the address`;
  if (code && TLS_CODE.test(code)) {
    return `the secure connection to ${url} failed (${code}); check http:// versus https:// in the address`;
  }
  const cause = e?.cause?.message ?? msg;
  // fetch refuses a list of ports (6000 for X11, 5060 for SIP, 10080...) before connecting, with only "bad port".
  if (fetchFailed && /\bbad port\b/.test(cause)) {
    const port = portOf(url);
    return `cannot reach ${url}: Node and web browsers refuse to connect to ${port ? `port ${port}` : 'this port'} for safety (it belongs to another kind of service); run the server on another port and change the address here`;
  }
  if (fetchFailed) return `cannot reach ${url}: ${cause}`;
  // Streamable HTTP: "Error POSTing to endpoint: <body>" with the status as `code`; SSE: "(HTTP <status>): <body>".
  const posted = /Error POSTing to endpoint(?: \(HTTP (\d+)\))?: ([\s\S]*)$/.exec(msg);
  if (posted) return statusMessage(Number(posted[1] ?? e?.code), posted[2], url, type);
  const sse = /^SSE error: Non-200 status code \((\d+)\)/.exec(msg);
  if (sse) return statusMessage(Number(sse[1]), '', url, type);
  const contentType = /Unexpected content type: ([^;\s]+)/.exec(msg)?.[1];
  if (contentType) return `${url} is not an MCP endpoint (it answered with ${contentType}); check the path (often /mcp) and the type (HTTP or SSE)`;
  if (/^SSE error: Invalid content type/.test(msg)) {
    return `${url} is not an SSE endpoint (it answered without an event stream); check the path (often /sse) and the type (HTTP or SSE)`;
  }
  return undefined;
}

/** An HTTP status other than success: a JSON-RPC error is quoted, any other body (an HTML page) only briefly. */
function statusMessage(status: number, body: string, url: string, type: 'http' | 'sse'): string {
  const http = Number.isFinite(status) ? `HTTP ${status}` : 'an error';
  const rpc = jsonRpcMessage(body);
  if (status === 401 || status === 403) {
    const said = cut(rpc ?? plainText(body));
    return `${url} refused access (${http}${said ? `: "${said}"` : ''}); check the server's sign-in or its Authorization header`;
  }
  if (rpc) return `${http} from ${url}: ${cut(rpc)}`;
  const said = cut(plainText(body));
  const quote = said ? ` (it answered: "${said}")` : '';
  const what = type === 'sse' ? 'not an MCP SSE endpoint; check the path (often /sse)' : 'not an MCP endpoint; check the path (often /mcp)';
  return `${http} from ${url}: ${what} and the type (HTTP or SSE)${quote}`;
}

function jsonRpcMessage(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } };
    return typeof parsed?.error?.message === 'string' ? parsed.error.message : undefined;
  } catch {
    return undefined;
  }
}

/** The text of an HTML page (or any body): no scripts, styles or tags, whitespace collapsed. */
function plainText(body: string): string {
  return body
    .replace(/<(script|style|head)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Cut where a word ends: the message is masked for secrets after this, by whole values. */
function cut(text: string): string {
  return text.length > QUOTE_CHARS ? `${cutAtWord(text, QUOTE_CHARS)}…` : text;
}

/** The port written in an address ('' when it has none, or cannot be read). */
function portOf(url: string): string {
  try {
    return new URL(url).port;
  } catch {
    return '';
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
}

/**
 * A failed start or a dropped connection told with how a stdio child exited and the lines of its stderr
 * that say why (stderrSummary). A child that exited without a word gets the next step instead.
 */
export function withServerOutput(base: string, stderr: string[], exit: ExitStatus | undefined, atStart: boolean): string {
  let message = base;
  if (exit && /^(Connection closed|Not connected|the server closed the connection)$/i.test(base)) {
    const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
    message = `the server exited${atStart ? ' at start' : ''} (${how})`;
  }
  const lines = stderrSummary(stderr);
  if (lines.length === 0) return exit && message !== base ? `${message} without output; run its command in a terminal to see why` : message;
  return message.includes(lines[lines.length - 1]) ? message : `${message} — stderr: ${lines.join(' | ')}`;
}
