/**
 * Notices an HTTP or SSE server that went away (audit s13). The SDK reports a broken event stream only
 * to the client's `onerror`: a call waiting for its answer on that stream would wait out its whole
 * timeout, and the status would stay 'ready'. A legacy SSE session lives on its one stream, so a stream
 * error loses it. Over Streamable HTTP a stream may break while the session lives on (a proxy cutting an
 * idle stream): a ping tells which.
 */
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { isSignInNeeded } from './sign-in-needed.js';
import { answeredByServer } from './upstream-client.js';

export interface ConnectionWatch {
  type: 'http' | 'sse';
  url: string;
  /** How long the ping after a Streamable HTTP error may take. */
  pingTimeoutMs: number;
  /** False before the server is ready and once this connection is replaced: errors then mean nothing. */
  current(): boolean;
  /** The connection is lost: `message` says how. */
  onLost(message: string): void;
}

/** Installs the watch as the client's `onerror` (before connect; errors before `current()` are ignored). */
export function watchConnection(client: Client, watch: ConnectionWatch): void {
  let pinging = false;
  client.onerror = (error) => {
    if (!watch.current()) return;
    if (watch.type === 'sse') {
      // The SDK's SSE transport reports stream failures as SseError ("SSE error: …"); other errors are one bad message.
      if (error.message.startsWith('SSE error:')) watch.onLost(`lost the event stream from ${watch.url} (${streamDetail(error.message)})`);
      return;
    }
    if (pinging) return;
    pinging = true;
    client.ping({ timeout: watch.pingTimeoutMs }).then(
      () => (pinging = false),
      (err: unknown) => {
        pinging = false;
        // An error answer is the server itself: it is there (a server without ping answers "method not found").
        if (!watch.current() || answeredByServer(err) || isSignInNeeded(err)) return;
        watch.onLost(lostMessage(err, watch.url));
      },
    );
  };
}

/**
 * An HTTP or SSE error that means the session is gone: the server answers 404 to a session it does not
 * know (spec: basic/transports, session management), e.g. after it restarted. The request did not run.
 */
export function isSessionLost(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (typeof e?.message !== 'string' || !e.message.includes('Error POSTing to endpoint')) return false;
  return e.code === 404 || e.message.includes('(HTTP 404)');
}

function lostMessage(err: unknown, url: string): string {
  const e = err as { code?: unknown; message?: unknown; cause?: { message?: unknown } } | null;
  if (isSessionLost(err)) return `the server at ${url} no longer knows this session (HTTP 404; it may have restarted)`;
  if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) return `the server at ${url} stopped answering (no answer to a ping)`;
  const cause = typeof e?.cause?.message === 'string' ? `: ${e.cause.message}` : '';
  return `lost the connection to ${url} (${String(e?.message ?? err)}${cause})`;
}

/** "SSE error: undefined" is a stream that simply ended. */
function streamDetail(message: string): string {
  const detail = message.slice('SSE error:'.length).trim();
  return detail === '' || detail === 'undefined' ? 'the stream ended' : detail;
}
