/**
 * What a request to the MCP endpoint says, read as the SDK transport reads it (its body within a limit,
 * the headers it checks before the body), and how the endpoint's own answers are written.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import { JSONRPCMessageSchema, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { CLIENT_MESSAGE_MAX_BYTES, clientMessageTooLarge } from '../../../shared/limits.js';
import { plainMessage } from '../wire/plain-message.js';

/** The bearer token of a request's Authorization header, if it has one. */
export function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  const m = header ? /^Bearer\s+(.+)$/i.exec(header.trim()) : null;
  return m?.[1]?.trim();
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function jsonRpcError(res: ServerResponse, status: number, message: string, code = -32000, headers: Record<string, string> = {}): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null }, headers);
}

/**
 * The request body as text; over the client message limit (by its Content-Length, or as it arrives) the
 * promise rejects with status 413 and the rest is read and dropped, so that the 413 can be answered (the
 * answer then closes the connection). The bridge socket takes the same limit per line (socket-endpoint.ts).
 */
export function readBody(req: IncomingMessage): Promise<string> {
  const limit = CLIENT_MESSAGE_MAX_BYTES;
  const tooLarge = (bytes?: number) => Object.assign(new Error(clientMessageTooLarge(bytes)), { status: 413 });
  const declared = Number(req.headers['content-length']);
  if (declared > limit) {
    req.resume();
    return Promise.reject(tooLarge(declared));
  }
  // The parser frames a body by its Content-Length: once that many bytes are here, no more can come, so
  // the body is taken then rather than a turn later at 'end' (one listener and one tick less per call).
  const framed = Number.isSafeInteger(declared) && declared > 0;
  // Events rather than `for await`: an async iterator per request was a visible share of a small call.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => resolve(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8'));
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        if (framed && size === declared) done();
        return;
      }
      req.off('data', onData);
      chunks.length = 0;
      req.resume();
      reject(tooLarge());
    };
    req.on('data', onData);
    if (!framed) req.once('end', done);
    req.once('error', reject);
  });
}

/**
 * Whether the SDK transport would take this request's protocol version (none, or one it supports); with
 * sdkTakesHeaders, whether it would take the POST at all: anything it would refuse goes to it, so it
 * answers as before.
 */
export function versionAccepted(req: IncomingMessage): boolean {
  const version = req.headers['mcp-protocol-version'];
  return version === undefined || (typeof version === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(version));
}

/** Accept and Content-Type of a POST as the SDK transport checks them, before it reads the body (else 406, 415). */
export function sdkTakesHeaders(req: IncomingMessage): boolean {
  const accept = req.headers.accept;
  return Boolean(accept?.includes('application/json') && accept.includes('text/event-stream') && isJsonContentType(req.headers['content-type']));
}

/** Whether an Accept header that names application/json takes it (not `q=0`): only then is a call answered as JSON. */
export function jsonAcceptable(accept: string): boolean {
  // Almost every client sends no weights at all: then nothing is refused (a check on every call's path).
  if (!/q=/i.test(accept)) return true;
  return !accept.split(',').some((range) => {
    const [type, ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    return type === 'application/json' && params.some((param) => /^q=0(\.0*)?$/.test(param));
  });
}

export const NOT_JSON = Symbol('not JSON');

/** A POST's body parsed, or NOT_JSON once it has answered that the body is no JSON. */
export async function readJson(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  const text = await readBody(req);
  try {
    return JSON.parse(text);
  } catch {
    jsonRpcError(res, 400, 'Parse error: the body is not JSON', -32700);
    return NOT_JSON;
  }
}

/** The body as a JSON-RPC message when it is one tools/call request, as the SDK transport would parse it. */
export function toolCall(body: unknown): JSONRPCMessage | undefined {
  const m = body as { method?: unknown } | null;
  if (typeof m !== 'object' || m === null || Array.isArray(m) || m.method !== 'tools/call') return undefined;
  const plain = plainMessage(body);
  if (plain) return plain;
  const parsed = JSONRPCMessageSchema.safeParse(body);
  return parsed.success ? parsed.data : undefined;
}
