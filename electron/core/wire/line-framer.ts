import { JSONRPCMessageSchema, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { formatCount } from '../../../shared/plain-text.js';
import { cutToHeads, mayBeMessage } from './cut-to-heads.js';
import { OrderedDelivery } from './ordered-delivery.js';
import { plainMessage } from './plain-message.js';
import type { RawMessageSpool, SpooledString } from './raw-spool.js';

/** Default cap on one newline-delimited message: far above the SDK's 10 MiB, bounded to protect memory. */
export const DEFAULT_MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

/** How much of an oversized message's start and end is kept, so its JSON-RPC id can be recovered. */
const KEPT_EDGE_BYTES = 1024;

const NEWLINE = 0x0a;

/**
 * A spooled line that does not begin as a JSON object cannot be a message: once the part of it held in
 * memory (outside long strings: all of it, for a line of noise) passes this, it is skipped as noise, its
 * first and last bytes kept for the log (audit s15: a 200 MB line of noise took 746 MB).
 */
const MAX_NOISE_SKELETON_BYTES = 8 * 1024 * 1024;

/** A line over the size cap: it was skipped, the stream goes on with the next line. */
export class OversizedMessageError extends Error {
  override readonly name = 'OversizedMessageError';
  constructor(
    /** Bytes the line held (without its newline); a lower bound when the stream ended inside it. */
    readonly bytes: number,
    readonly limit: number,
    /** The first bytes of the line (up to 1 KiB), decoded as UTF-8. */
    readonly head: string,
    /** The last bytes of the line (up to 1 KiB), decoded as UTF-8. */
    readonly tail: string,
  ) {
    super(`upstream message of ${bytes} bytes exceeds the limit of ${limit} bytes and was skipped`);
  }
}

/** A long line that could not be streamed to disk once it had begun (disk full, folder gone): skipped. */
export class SpoolFailedError extends OversizedMessageError {
  override readonly message: string;
  constructor(bytes: number, head: string, tail: string, cause: unknown) {
    super(bytes, Number.NaN, head, tail);
    this.message = `upstream message of at least ${bytes} bytes could not be written to disk (${(cause as Error)?.message ?? cause}) and was skipped`;
  }
}

interface FramerLimits {
  /** Largest line accepted, in bytes without the newline. Default 256 MiB. */
  maxMessageBytes?: number;
  /** A line over the cap; framing continues after its newline. */
  onError?: (error: OversizedMessageError) => void;
}

/** Parsed lines: each one a JSON-RPC message (the transports). */
interface MessageFramerOptions extends FramerLimits {
  /**
   * `spooled`: the long strings of a spooled line, each a placeholder in `message` (see `spool`). A
   * promise returned holds the lines after this one back until it settles.
   */
  onMessage: (message: JSONRPCMessage, spooled?: SpooledString[]) => unknown;
  /**
   * Lines longer than `aboveBytes` are streamed through a spool made by `create`: their long strings go
   * to files as they arrive, so such a line is never held in memory whole. Without it lines are joined.
   */
  spool?: { aboveBytes: number; create: () => RawMessageSpool };
  /** A line that is not JSON or not JSON-RPC (a server logging to stdout): reported, never fatal. */
  onNoise?: (line: string) => void;
  /**
   * Keeps deliveries in order while a spooled line waits for its files to be written; a transport that
   * holds deliveries back itself passes its own, so both keep one order. Default: one of its own.
   */
  order?: OrderedDelivery;
  onLine?: never;
}

/** Raw lines: a relay that forwards bytes as they came (the bridge) and parses only what it must. */
interface RawFramerOptions extends FramerLimits {
  /**
   * Each non-empty line's bytes, unparsed, its newline included (a view of the chunk when the line lies
   * inside one); a last line delivered by end() has none.
   */
  onLine: (line: Buffer) => void;
  onMessage?: never;
  spool?: never;
  onNoise?: never;
  order?: never;
}

export type LineFramerOptions = MessageFramerOptions | RawFramerOptions;

/**
 * Newline-delimited JSON-RPC framing in linear time: chunks are kept in a list, only the bytes of each
 * new chunk are scanned for '\n', and a message is joined and decoded once. (The SDK 1.x ReadBuffer
 * re-concatenates its whole buffer per chunk and drops anything over 10 MiB — see TOOLCHAIN.md.)
 * With `onLine` it hands over raw lines instead, for the bridge, which forwards bytes without parsing them.
 */
export class LineFramer {
  readonly maxMessageBytes: number;
  readonly #onMessage: MessageFramerOptions['onMessage'] | undefined;
  readonly #onLine: ((line: Buffer) => void) | undefined;
  readonly #spoolOptions: LineFramerOptions['spool'];
  readonly #onNoise: ((line: string) => void) | undefined;
  readonly #onError: ((error: OversizedMessageError) => void) | undefined;
  readonly #order: OrderedDelivery;

  /** Pieces of the current, unfinished line. */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** Set while skipping the rest of an oversized line, or of a long line of noise (`noise`). */
  #skipping: { bytes: number; head: Buffer; tail: Buffer; deleted?: Promise<void>; noise?: boolean } | undefined;
  /**
   * Set while the current line streams through a spool; `head` keeps its first bytes. `noiseAt`: the
   * skeleton size past which it is skipped as noise (MAX_NOISE_SKELETON_BYTES, or no limit for a line that may be a message).
   */
  #spooling: { spool: RawMessageSpool; head: Buffer; tail: Buffer; noiseAt: number } | undefined;
  /** The spool could not start for the current line: it is joined in memory instead. */
  #spoolRefused = false;
  /** Why the line being skipped is skipped, when it is not its size. */
  #skipCause: unknown;

  constructor(options: LineFramerOptions) {
    const max = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    if (!Number.isSafeInteger(max) || max <= 0) throw new RangeError(`maxMessageBytes must be a positive integer, got ${max}`);
    this.maxMessageBytes = max;
    this.#onMessage = options.onMessage;
    this.#onLine = options.onLine;
    this.#onNoise = options.onNoise;
    this.#onError = options.onError;
    this.#spoolOptions = options.spool;
    // No transport to tell: a callback that throws is thrown again on its own (the lines after it still go).
    this.#order =
      options.order ??
      new OrderedDelivery((error) =>
        queueMicrotask(() => {
          throw error;
        }),
      );
  }

  /** Bytes held for the unfinished line (0 while skipping an oversized one). */
  get bufferedBytes(): number {
    return this.#pendingBytes;
  }

  /** Feeds bytes from the stream; calls the callbacks for every line it completes. */
  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      if (end > start) this.#append(chunk.subarray(start, end));
      if (newline === -1) return;
      this.#finishLine(chunk, newline);
      start = newline + 1;
    }
  }

  /** The stream ended: a last line without a newline is still delivered. */
  end(): void {
    if (this.#pendingBytes > 0 || this.#skipping) this.#finishLine();
  }

  /**
   * Drops any partial line (e.g. when the connection is torn down); lines already complete are still
   * delivered. The promise says when the dropped line's files are deleted.
   */
  reset(): Promise<void> {
    const deleted = this.#spooling?.spool.abort() ?? Promise.resolve();
    this.#spooling = undefined;
    this.#spoolRefused = false;
    this.#skipCause = undefined;
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#skipping = undefined;
    return deleted;
  }

  #append(piece: Buffer): void {
    if (this.#skipping) {
      this.#skipping.bytes += piece.length;
      this.#skipping.tail = keepTail(this.#skipping.tail, piece);
      return;
    }
    if (this.#pendingBytes + piece.length > this.maxMessageBytes) {
      const spooling = this.#spooling;
      const all = [...this.#pending, piece];
      const head = spooling?.head ?? Buffer.concat(all, Math.min(KEPT_EDGE_BYTES, this.#pendingBytes + piece.length));
      let tail: Buffer = spooling?.tail ?? Buffer.alloc(0);
      for (const part of all.slice(-2)) tail = keepTail(tail, part);
      this.#spooling = undefined;
      this.#skipping = { bytes: this.#pendingBytes + piece.length, head, tail, ...(spooling ? { deleted: spooling.spool.abort() } : {}) };
      this.#pending = [];
      this.#pendingBytes = 0;
      return;
    }
    const spooling = this.#spooling;
    if (spooling) {
      spooling.tail = keepTail(spooling.tail, piece);
      this.#pendingBytes += piece.length;
      try {
        spooling.spool.push(piece);
        if (spooling.spool.skeletonBytes > spooling.noiseAt) {
          this.#spooling = undefined;
          this.#skipping = { bytes: this.#pendingBytes, head: spooling.head, tail: spooling.tail, deleted: spooling.spool.abort(), noise: true };
          this.#pendingBytes = 0;
        }
      } catch (error) {
        // Half the line is on disk and gone from memory: it cannot be delivered. Skip it, failing its request.
        this.#spooling = undefined;
        this.#skipping = { bytes: this.#pendingBytes, head: spooling.head, tail: spooling.tail, deleted: spooling.spool.abort() };
        this.#skipCause = error;
        this.#pendingBytes = 0;
      }
      return;
    }
    if (this.#spoolOptions && !this.#spoolRefused && this.#pendingBytes + piece.length > this.#spoolOptions.aboveBytes) {
      const all = [...this.#pending, piece];
      let spool: RawMessageSpool | undefined;
      try {
        spool = this.#spoolOptions.create();
        const head = Buffer.from(Buffer.concat(all, Math.min(KEPT_EDGE_BYTES, this.#pendingBytes + piece.length)));
        let tail: Buffer = Buffer.alloc(0);
        for (const part of all) {
          spool.push(part);
          tail = keepTail(tail, part);
        }
        this.#spooling = { spool, head, tail, noiseAt: mayBeMessage(head) ? Infinity : MAX_NOISE_SKELETON_BYTES };
        this.#pending = [];
        this.#pendingBytes += piece.length;
        return;
      } catch {
        // The spool could not start; everything is still in memory, so the line is joined as usual.
        void spool?.abort();
        this.#spoolRefused = true;
      }
    }
    // The stream may reuse its chunk memory only if we copied; Node gives each 'data' chunk its own
    // buffer, so keeping a view is safe and avoids a copy.
    this.#pending.push(piece);
    this.#pendingBytes += piece.length;
  }

  /** Ends the current line; `chunk` and `newline` say where its newline is (none at end()). */
  #finishLine(chunk?: Buffer, newline = 0): void {
    this.#spoolRefused = false;
    const skipped = this.#skipping;
    if (skipped) {
      const cause = this.#skipCause;
      this.#skipping = undefined;
      this.#skipCause = undefined;
      const [head, tail] = [skipped.head.toString('utf8'), skipped.tail.toString('utf8')];
      if (skipped.noise) {
        const noise = `${head} […${formatCount(skipped.bytes)} bytes in all, the middle left out…] ${tail}`;
        this.#order.run(() => skipped.deleted!.then(() => this.#onNoise?.(noise)));
        return;
      }
      const error =
        cause === undefined
          ? new OversizedMessageError(skipped.bytes, this.maxMessageBytes, head, tail)
          : new SpoolFailedError(skipped.bytes, head, tail, cause);
      // A line that was spooled is reported once its files are deleted.
      const deleted = skipped.deleted;
      this.#order.run(deleted ? () => deleted.then(() => this.#onError?.(error)) : () => this.#onError?.(error));
      return;
    }
    const spooling = this.#spooling;
    if (spooling) {
      const bytes = this.#pendingBytes;
      this.#spooling = undefined;
      this.#pendingBytes = 0;
      this.#deliverSpooled(spooling, bytes);
      return;
    }
    const pieces = this.#pending;
    const bytes = this.#pendingBytes;
    this.#pending = [];
    this.#pendingBytes = 0;
    if (bytes === 0) return;
    if (this.#onLine) return this.#onLine(rawLine(pieces, bytes, chunk, newline));
    const joined = pieces.length === 1 ? pieces[0] : Buffer.concat(pieces, bytes);
    const end = joined[bytes - 1] === 0x0d ? bytes - 1 : bytes; // CRLF line endings
    const line = joined.toString('utf8', 0, end);
    this.#order.run(() => this.#deliver(line));
  }

  #deliverSpooled(spooling: { spool: RawMessageSpool; head: Buffer; tail: Buffer }, bytes: number): void {
    const { spool } = spooling;
    const failed = (error: unknown) =>
      spool.abort().then(() => this.#onError?.(new SpoolFailedError(bytes, spooling.head.toString('utf8'), spooling.tail.toString('utf8'), error)));
    let finished: ReturnType<RawMessageSpool['finish']>;
    try {
      finished = spool.finish();
    } catch (error) {
      this.#order.run(() => failed(error));
      return;
    }
    const { skeleton, strings, written } = finished;
    let parsed: ReturnType<typeof JSONRPCMessageSchema.safeParse> | undefined;
    try {
      parsed = JSONRPCMessageSchema.safeParse(JSON.parse(skeleton));
    } catch {
      // not JSON: noise, below
    }
    if (!parsed?.success) {
      const deleted = spool.abort();
      this.#order.run(() => deleted.then(() => this.#onNoise?.(skeleton)));
      return;
    }
    const message = parsed.data;
    if (strings.length === 0) return this.#order.run(() => this.#onMessage!(message));
    // Delivered in its turn once its files are open, when none of their writes has failed (issue 12: the
    // answer does not wait for the last writes; whoever reads, moves or deletes a file waits for its
    // `written`). Otherwise once they are complete; when the disk refused them (read-only, full), the
    // files are deleted and the message is delivered with each text cut to the head kept in memory.
    this.#order.run(async () => {
      await Promise.all(strings.map((s) => s.opened));
      if (strings.every((s) => s.fine())) return this.#onMessage!(message, strings);
      return written.then(
        () => this.#onMessage!(message, strings),
        (error: unknown) => spool.abort().then(() => this.#onMessage!(cutToHeads(message, strings, error))),
      );
    });
  }

  #deliver(line: string): unknown {
    if (line.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      this.#onNoise?.(line);
      return;
    }
    // The common shapes skip zod (issue 6: it was a tenth of a relayed call); the schema judges the rest.
    const plain = plainMessage(json);
    if (plain) return this.#onMessage!(plain);
    const parsed = JSONRPCMessageSchema.safeParse(json);
    if (!parsed.success) {
      this.#onNoise?.(line);
      return;
    }
    return this.#onMessage!(parsed.data);
  }
}

/** A raw line with its newline: a view when the line lies inside the chunk that holds its newline, else one copy. */
function rawLine(pieces: Buffer[], bytes: number, chunk: Buffer | undefined, newline: number): Buffer {
  if (!chunk) return pieces.length === 1 ? pieces[0] : Buffer.concat(pieces, bytes);
  const from = pieces[0].byteOffset - chunk.byteOffset;
  if (pieces.length === 1 && pieces[0].buffer === chunk.buffer && from >= 0 && from + bytes === newline) return chunk.subarray(from, newline + 1);
  return Buffer.concat([...pieces, chunk.subarray(newline, newline + 1)], bytes + 1);
}

function keepTail(tail: Buffer, piece: Buffer): Buffer {
  if (piece.length >= KEPT_EDGE_BYTES) return Buffer.from(piece.subarray(piece.length - KEPT_EDGE_BYTES));
  const combined = Buffer.concat([tail, piece]);
  return combined.length > KEPT_EDGE_BYTES ? combined.subarray(combined.length - KEPT_EDGE_BYTES) : combined;
}

const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
/** `{"jsonrpc":"2.0","id":7,"result":…` — how most non-JS SDKs order a response. */
const ID_FIRST = new RegExp(String.raw`^\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*${ID}\s*,\s*"(?:result|error)"\s*:`);
/** `{"result":…,"jsonrpc":"2.0","id":7}` — how the TypeScript SDK orders a response. */
const RESULT_FIRST_HEAD = /^\s*\{\s*"(?:result|error)"\s*:/;
const ID_LAST = new RegExp(String.raw`"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*${ID}\s*\}\s*$`);

/**
 * Best-effort: the id of the response an oversized line carried, so the caller can fail that one
 * request at once instead of letting it hang until its timeout. Undefined when the line does not
 * look like a JSON-RPC response.
 */
export function oversizedResponseId(error: Pick<OversizedMessageError, 'head' | 'tail'>): RequestId | undefined {
  const raw = ID_FIRST.exec(error.head)?.[1] ?? (RESULT_FIRST_HEAD.test(error.head) ? ID_LAST.exec(error.tail)?.[1] : undefined);
  if (raw === undefined) return undefined;
  const id: unknown = JSON.parse(raw);
  return typeof id === 'number' || typeof id === 'string' ? id : undefined;
}

/** `{"jsonrpc":"2.0","id":7,"method":…` — how most non-JS SDKs order a request. */
const REQUEST_ID_FIRST = new RegExp(String.raw`^\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*${ID}\s*,\s*"method"\s*:`);
/** `{"method":…` or `{"jsonrpc":"2.0","method":…`: a request or notification whose id, if any, comes later. */
const METHOD_HEAD = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"method"\s*:/;
/** `…,"id":7}` at the very end: a member of the line's outermost object (a nested one would end in `}}`). */
const ID_AT_END = new RegExp(String.raw`,\s*"id"\s*:\s*${ID}\s*\}\s*$`);

/**
 * Best-effort: the id of the request an oversized line carried (the TypeScript SDK puts it last, most
 * others right after "jsonrpc"), so the reader can refuse that request at once instead of leaving its
 * sender waiting. Undefined for a response, a notification, or a line whose id is neither first nor last.
 */
export function oversizedRequestId(error: Pick<OversizedMessageError, 'head' | 'tail'>): RequestId | undefined {
  const raw = REQUEST_ID_FIRST.exec(error.head)?.[1] ?? (METHOD_HEAD.test(error.head) ? ID_AT_END.exec(error.tail)?.[1] : undefined);
  if (raw === undefined) return undefined;
  const id: unknown = JSON.parse(raw);
  return typeof id === 'number' || typeof id === 'string' ? id : undefined;
}
