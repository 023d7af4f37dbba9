/**
 * What a request to the MCP endpoint says, read as the SDK transport reads it (its body within a limit,
 * the headers it checks before the body), and how the endpoint's own answers are written.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  ErrorCode,
  JSONRPCMessageSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { CLIENT_MESSAGE_MAX_BYTES, clientMessageTooLarge } from '../../../shared/limits.js';
import { oversizedResponseId } from '../wire/line-framer.js';
import { plainMessage } from '../wire/plain-message.js';
import { notificationNestingProblem } from './call-params.js';

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
 * The request body as text. Over the client message limit (by its Content-Length, or as it arrives) it is
 * never held whole (oversizedBody): a request gets 413, a client's answer is an OversizedAnswer. The
 * bridge socket takes the same limit per line (socket-endpoint.ts).
 */
export function readBody(req: IncomingMessage): Promise<string | OversizedAnswer> {
  const limit = CLIENT_MESSAGE_MAX_BYTES;
  const declared = Number(req.headers['content-length']);
  if (declared > limit) return oversizedBody(req, [], declared);
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
      req.off('end', done);
      chunks.push(chunk);
      oversizedBody(req, chunks.splice(0), undefined).then(resolve, reject);
    };
    req.on('data', onData);
    if (!framed) req.once('end', done);
    req.once('error', reject);
  });
}

/** How much of an oversized body's start and end is kept: where a JSON-RPC message has its id. */
const EDGE_BYTES = 1024;

/** `{"result":…` or `{"error":…`: an answer whose id comes last, as the TypeScript SDK writes it. */
const ANSWER_HEAD = /^\s*\{\s*"(?:result|error)"\s*:/;

/**
 * A client's answer (to sampling, elicitation, roots/list) over the client message limit, of which only its
 * id was kept. The endpoint hands the session `answer` in its place, so the request the hub sent fails at
 * once (with the call that asked) instead of waiting out the relayed request's 10 minutes, and answers the
 * POST 413: the spec's Streamable HTTP transport gives input the server did not take an HTTP error status
 * (202 said it was taken).
 */
export class OversizedAnswer {
  constructor(
    readonly id: RequestId,
    readonly bytes: number,
  ) {}

  /** The limit's words. */
  get message(): string {
    return clientMessageTooLarge(this.bytes);
  }

  /** The error answer of its id that the session gets as the client's answer. */
  get answer(): JSONRPCErrorResponse {
    return { jsonrpc: '2.0', id: this.id, error: { code: ErrorCode.InvalidRequest, message: this.message } };
  }
}

/**
 * A body over the client message limit, `seen` being what was read of it so far. A request (anything whose
 * first KiB is no answer) rejects with status 413 at once; the rest is read and dropped, so that the 413
 * can be answered (the answer then closes the connection). A client's answer is read to its end, keeping
 * its first and last KiB only, and when they give its id it resolves as an OversizedAnswer of that id.
 */
function oversizedBody(req: IncomingMessage, seen: Buffer[], declared: number | undefined): Promise<OversizedAnswer> {
  const tooLarge = (bytes?: number) => Object.assign(new Error(clientMessageTooLarge(bytes)), { status: 413 });
  return new Promise((resolve, reject) => {
    let bytes = 0;
    let head: Buffer = Buffer.alloc(0);
    let tail: Buffer = Buffer.alloc(0);
    /** Set once the first KiB shows the body may be an answer: it is then read to its end. */
    let answer = false;
    let refused = false;
    const take = (chunk: Buffer) => {
      bytes += chunk.length;
      tail = keepTail(tail, chunk);
      if (answer) return;
      if (head.length < EDGE_BYTES) head = Buffer.concat([head, chunk.subarray(0, EDGE_BYTES - head.length)]);
      if (head.length < EDGE_BYTES) return;
      answer = mayBeAnswer(head.toString('utf8'));
      if (answer) return;
      // A request: refused now, the rest drained unread.
      refused = true;
      req.off('data', take);
      req.off('end', ended);
      req.resume();
      reject(tooLarge(declared));
    };
    const ended = () => {
      const id = oversizedResponseId({ head: head.toString('utf8'), tail: tail.toString('utf8') });
      if (id === undefined) return reject(tooLarge(bytes));
      resolve(new OversizedAnswer(id, bytes));
    };
    for (const chunk of seen) if (!refused) take(chunk);
    if (refused) return;
    req.on('data', take);
    req.once('end', ended);
    req.once('error', reject);
  });
}

/** Whether a body's first KiB may be a JSON-RPC answer: its id first (then already read), or after its result. */
function mayBeAnswer(head: string): boolean {
  return ANSWER_HEAD.test(head) || oversizedResponseId({ head, tail: '' }) !== undefined;
}

/** The last EDGE_BYTES of what `tail` and `piece` hold together. */
function keepTail(tail: Buffer, piece: Buffer): Buffer {
  if (piece.length >= EDGE_BYTES) return Buffer.from(piece.subarray(piece.length - EDGE_BYTES));
  const joined = Buffer.concat([tail, piece]);
  return joined.length > EDGE_BYTES ? joined.subarray(joined.length - EDGE_BYTES) : joined;
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

/** A POST's body parsed, an OversizedAnswer, or NOT_JSON once it has answered that the body is no JSON. */
export async function readJson(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  const text = await readBody(req);
  if (text instanceof OversizedAnswer) return text;
  try {
    return JSON.parse(text);
  } catch {
    jsonRpcError(res, 400, 'Parse error: the body is not JSON', -32700);
    return NOT_JSON;
  }
}

/** Why a body that is one notification is dropped for how deeply its params nest; undefined for anything else. */
export function nestedNotification(body: unknown): string | undefined {
  const m = body as { id?: unknown; method?: unknown; params?: unknown } | null;
  if (typeof m !== 'object' || m === null || Array.isArray(m) || typeof m.method !== 'string' || m.id !== undefined) return undefined;
  return typeof m.params === 'object' && m.params !== null ? notificationNestingProblem(m.method, m.params) : undefined;
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
