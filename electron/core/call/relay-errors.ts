/**
 * Errors on the relay's paths: JSON-RPC errors thrown back to a client, tool failures returned as
 * results (`isError: true`), and how an upstream failure reads.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
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

/** Why a server cannot take a request now: not configured, or its status (and last error). */
export function unavailableMessage(serverId: string, up: Upstream | undefined): string {
  if (!up) return `Server "${serverId}" is not configured in Spillway.`;
  if (up.status === 'needs-sign-in') return `Server "${serverId}" needs a sign-in: ${up.error ?? "open Spillway's Servers view and press Sign in."}`;
  const why = up.status === 'error' && up.error ? `: ${up.error}` : '';
  return `Server "${serverId}" is not available right now (status: ${up.status}${why}).`;
}
