/**
 * Errors on the relay's paths: JSON-RPC errors thrown back to a client, tool failures returned as
 * results (`isError: true`), and how an upstream failure reads.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { NAME_SEPARATOR } from '../catalog/tool-names.js';
import type { Upstream } from '../upstream/upstream.js';

/** Strips the SDK's `MCP error <code>: ` prefix so relayed errors do not double it. */
export function bareMessage(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return msg.replace(/^(MCP error -?\d+: )+/, '');
}

/**
 * A JSON-RPC error to throw from a handler. Not an McpError: its message already carries the
 * `MCP error <code>:` prefix, which the receiving SDK adds again.
 */
export function rpcError(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, data });
}

/** A network-level failure (the HTTP server is gone), as opposed to an answer from the server. */
export function isUnreachable(err: unknown): boolean {
  const e = err as Error & { cause?: { code?: string }; code?: string };
  const code = e?.cause?.code ?? e?.code;
  return (
    (typeof code === 'string' && ['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENOTFOUND', 'UND_ERR_SOCKET'].includes(code)) ||
    /fetch failed|ECONNREFUSED|socket hang up/i.test(e?.message ?? '')
  );
}

export function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** What the messages below read of an upstream. */
type UpstreamState = Pick<Upstream, 'id' | 'status' | 'error' | 'client' | 'reconnecting'>;

/** Why a server cannot take a request now: not configured, or its status (and last error). */
export function unavailableMessage(serverId: string, up: Pick<UpstreamState, 'status' | 'error'> | undefined): string {
  if (!up) return `Server "${serverId}" is not configured in Spillway.`;
  if (up.status === 'needs-sign-in') return `Server "${serverId}" needs a sign-in: ${up.error ?? "open Spillway's Servers view and press Sign in."}`;
  const why = up.status === 'error' && up.error ? `: ${up.error}` : '';
  return `Server "${serverId}" is not available right now (status: ${up.status}${why}).`;
}

/** A call of a tool of a server that is not running: what the client is told, and the log line. */
export interface NotRunningCall {
  message: string;
  log: string;
}

/**
 * A call of a tool named for a configured server (`<server>__<tool>`) that is not listed because the
 * server is not running: the client is told the server's state and what to do next, and the log says
 * which client called it. Undefined when the server runs (its tool is unknown) or is no longer configured.
 */
export function notRunningCall(tool: string, up: UpstreamState | undefined, clientName: string | undefined): NotRunningCall | undefined {
  const message = notRunningMessage(tool, up);
  if (message === undefined || !up) return undefined;
  return { message, log: `${clientName ?? 'A client'} called a tool of "${up.id}", which is not running: ${message}` };
}

/** Why a tool of a server that is not running cannot be called, with what to do next (see notRunningCall). */
function notRunningMessage(tool: string, up: UpstreamState | undefined): string | undefined {
  if (!up || up.client) return undefined;
  const server = `Server "${up.id}"`;
  switch (up.status) {
    case 'needs-sign-in':
      return unavailableMessage(up.id, up);
    case 'disabled':
      return `${server} is turned off in Spillway, so its tool "${tool}" cannot be called. Turn it on in Spillway's Servers view, then call the tool again.`;
    case 'stopped':
      return `${server} is stopped in Spillway, so its tool "${tool}" cannot be called. Press Restart for it in Spillway's Servers view, then call the tool again.`;
    case 'error':
      if (!up.reconnecting) {
        return `${server} is stopped, so its tool "${tool}" cannot be called: ${up.error ?? 'it failed'}. Restart is in Spillway's Servers view; call the tool again once the server runs.`;
      }
      return `${server} failed and Spillway is trying it again, so its tool "${tool}" cannot be called yet: ${up.error ?? 'it failed'}. Call the tool again in a moment.`;
    default:
      // Connecting (or idle, on first use) still: its tools are listed once it is up.
      return `${server} is still starting, so its tool "${tool}" cannot be called yet. Call it again in a moment.`;
  }
}

/** The configured server whose prefix (`<id>__`) an exposed tool name starts with, the longest such id. */
export function serverNamedIn<U>(name: string, upstreams: ReadonlyMap<string, U>): U | undefined {
  let found: { id: string; up: U } | undefined;
  for (const [id, up] of upstreams) {
    if (name.startsWith(`${id}${NAME_SEPARATOR}`) && id.length > (found?.id.length ?? -1)) found = { id, up };
  }
  return found?.up;
}

/**
 * Why a tool named for a configured server that is not running cannot be called, as a call through
 * spillway__dispatch is told (its catalog lists no tools of a stopped server); undefined otherwise.
 */
export function notRunningTool(
  name: string,
  upstreams: ReadonlyMap<string, UpstreamState>,
  clientName?: string,
): (NotRunningCall & { server: string }) | undefined {
  const up = serverNamedIn(name, upstreams);
  const call = up && notRunningCall(name, up, clientName);
  return call && up ? { ...call, server: up.id } : undefined;
}
