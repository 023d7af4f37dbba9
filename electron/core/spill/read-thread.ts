/**
 * The read thread's program: read_result ops on the largest spilled texts, and every grep and query
 * (read-result.ts decides which), so that reading, splitting into lines and parsing tens of megabytes, or
 * running a model's slow pattern or query, never holds the hub's main thread (audit s12: each read of a
 * 51 MB JSON held it for ~0.9 s; audit s13: each grep, up to its 2 s deadline). It reads the text files
 * itself and keeps those it read, with their lines and JSON once made, for the model's next reads of them
 * (ThreadDocuments): the thread is stopped when idle (read-thread-host.ts), which gives all of it back.
 *
 * Run in a worker (read-thread-host.ts), which it knows by its workerData; the main thread imports its types alone.
 */
import { readFile } from 'node:fs/promises';
import { isMainThread, parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { LRUCache, type Perf } from 'lru-cache';
import type { ResultEncoding } from '../../../shared/policy.js';
import { TokenCounter, type TokenCount } from '../tokens/token-counter.js';
import { answerRead, notingView, type DocumentAnswer, type DocumentRead } from './read-document.js';
import { largeLinesView, linesView, TOON_VIEW_MAX_CHARS, type ToonLimits } from './read-encoding.js';
import { ReadOpError } from './read-ops.js';
import { SpillDocument } from './spill-document.js';

export interface ReadThreadRequest {
  id: number;
  /** The entry's text file (the store checked that the entry is live and its files complete). */
  path: string;
  encoding: ResultEncoding;
  read: DocumentRead;
  /**
   * The host counts tokens for this request (CountRequest), so the thread chooses a JSON text's view as
   * the main thread would (read-encoding.ts linesView). Without it, only a text's size decides (largeLinesView).
   */
  counts?: true;
}

export type ReadThreadReply =
  /** `view`: the view this answer chose for the text's lines (a TOON view's header, or null for its JSON lines); absent when it chose none. */
  | { id: number; answer: DocumentAnswer; view?: string | null }
  /** `readOp`: a ReadOpError (the model can fix its request); `code`: a file system error's code. */
  | { id: number; error: string; readOp?: true; code?: string };

/** Asked of the host while request `id` chooses its view: the tokens of `text` by the host counter's quickCount. */
export interface CountRequest {
  count: number;
  id: number;
  text: string;
}
export type CountReply = { count: number; tokens: TokenCount } | { count: number; error: string };

/** What the thread posts to the host, and what the host posts to it. */
export type FromReadThread = ReadThreadReply | CountRequest;
export type ToReadThread = ReadThreadRequest | CountReply;

/**
 * Texts of more UTF-8 bytes than this are sent to the thread for every op, the others for a grep or a query
 * only (read-result.ts OFF_THREAD_ABOVE_BYTES): one of them is kept apart from the others (ThreadDocuments).
 */
const LARGE_TEXT_BYTES = 3 * TOON_VIEW_MAX_CHARS;
/** What the smaller texts kept may weigh together (SpillDocument.weight): a 6 MB JSON text weighs ~30 MB. */
const SMALL_TEXTS_WEIGHT = 32 * 1024 * 1024;
/** How long a text is kept unread, even while the thread reads others (the main thread's document cache keeps them as long). */
const DOCUMENT_TTL_MS = 2 * 60_000;

/**
 * The texts read, by file: a spilled file never changes under its handle (handles name their content).
 * The last large text is kept on its own, so that a grep of a small result never pushes it out (audit
 * s13: a 33 MB JSON was read and parsed again after each, 0.4-1.1 s in which every read queued behind
 * it); the small ones share SMALL_TEXTS_WEIGHT. Each is dropped after DOCUMENT_TTL_MS unread.
 */
export class ThreadDocuments {
  readonly #large: LRUCache<string, SpillDocument>;
  readonly #small: LRUCache<string, SpillDocument>;
  /** Reads under way: requests for the same file share one. */
  readonly #reading = new Map<string, Promise<SpillDocument>>();
  readonly #largeTextBytes: number;

  /** `clock`: what the keep times are measured by (default performance.now; tests move one by hand). */
  constructor(options: { largeTextBytes?: number; smallTextsWeight?: number; ttlMs?: number; clock?: Perf } = {}) {
    // A clock given is read at every check: lru-cache otherwise reuses a reading for 1 ms of real time.
    const clock = options.clock ? { perf: options.clock, ttlResolution: 0 } : {};
    const ttl = { ttl: options.ttlMs ?? DOCUMENT_TTL_MS, ttlAutopurge: true, updateAgeOnGet: true, ...clock };
    this.#large = new LRUCache<string, SpillDocument>({ max: 1, ...ttl });
    this.#small = new LRUCache<string, SpillDocument>({
      maxSize: options.smallTextsWeight ?? SMALL_TEXTS_WEIGHT,
      sizeCalculation: (doc) => Math.max(1, doc.weight),
      ...ttl,
    });
    this.#largeTextBytes = options.largeTextBytes ?? LARGE_TEXT_BYTES;
  }

  /** The document of the text file at `path`, read once while kept. A failed read is not kept: the next request tries again. */
  get(path: string): Promise<SpillDocument> {
    const kept = this.#large.get(path) ?? this.#small.get(path);
    if (kept) return Promise.resolve(kept);
    let reading = this.#reading.get(path);
    if (!reading) {
      reading = readFile(path).then((bytes) => {
        const doc = new SpillDocument(bytes.toString('utf8'));
        // A small text heavier than all SMALL_TEXTS_WEIGHT is not kept (lru-cache refuses it).
        if (bytes.length > this.#largeTextBytes) this.#large.set(path, doc);
        else this.#small.set(path, doc);
        return doc;
      });
      const settled = () => {
        if (this.#reading.get(path) === reading) this.#reading.delete(path);
      };
      reading.then(settled, settled);
      this.#reading.set(path, reading);
    }
    return reading;
  }

  /** Files kept, large and small (for tests). */
  get kept(): { large: string[]; small: string[] } {
    return { large: [...this.#large.keys()], small: [...this.#small.keys()] };
  }
}

/**
 * How long choosing a TOON view here may take before the JSON lines are read: longer than the main thread's
 * TOON_DEADLINE_MS (nothing else waits on this thread but other reads), and a bound on those waits.
 */
const THREAD_TOON_LIMITS: ToonLimits = { maxChars: TOON_VIEW_MAX_CHARS, deadlineMs: 2_000 };

/**
 * The token counter a view is chosen with on this thread (linesView, whose encodeValue asks quickCount
 * alone): each count is asked of the host's counter, so the counts and the choice are the main thread's.
 * Nothing else of it is used: no tokenizer is loaded in this thread.
 */
class HostCounter extends TokenCounter {
  constructor(readonly ask: (text: string) => Promise<TokenCount>) {
    super();
  }

  override quickCount(text: string): Promise<TokenCount> {
    return this.ask(text);
  }
}

/** The thread's side of its port: answers requests and asks the host for counts. */
class ReadThreadServer {
  readonly #port: MessagePort;
  readonly #documents = new ThreadDocuments();
  #nextCount = 1;
  readonly #counts = new Map<number, { resolve: (count: TokenCount) => void; reject: (error: Error) => void }>();

  constructor(port: MessagePort) {
    this.#port = port;
    port.on('message', (message: ToReadThread) => {
      if ('count' in message) this.#counted(message);
      else void this.#answer(message).then((reply) => port.postMessage(reply satisfies FromReadThread));
    });
  }

  async #answer(request: ReadThreadRequest): Promise<ReadThreadReply> {
    try {
      const doc = await this.#documents.get(request.path);
      const { viewOf, chosen } = notingView((d) =>
        request.counts
          ? linesView(d, request.encoding, new HostCounter((text) => this.#askCount(request.id, text)), THREAD_TOON_LIMITS)
          : largeLinesView(d, request.encoding),
      );
      const answer = await answerRead(doc, request.read, viewOf);
      const view = chosen();
      return { id: request.id, answer, ...(view !== undefined ? { view } : {}) };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      return {
        id: request.id,
        error: String((error as Error)?.message ?? error),
        ...(error instanceof ReadOpError ? { readOp: true as const } : {}),
        ...(typeof code === 'string' ? { code } : {}),
      };
    }
  }

  #askCount(id: number, text: string): Promise<TokenCount> {
    const count = this.#nextCount++;
    return new Promise<TokenCount>((resolve, reject) => {
      this.#counts.set(count, { resolve, reject });
      this.#port.postMessage({ count, id, text } satisfies FromReadThread);
    });
  }

  #counted(reply: CountReply): void {
    const pending = this.#counts.get(reply.count);
    if (!pending) return;
    this.#counts.delete(reply.count);
    if ('tokens' in reply) pending.resolve(reply.tokens);
    else pending.reject(new Error(reply.error));
  }
}

/** The thread's workerData, by which it knows it is the read thread (not some other worker that imports this module). */
export interface ReadThreadData {
  spillwayReadThread: true;
}

if (!isMainThread && parentPort && (workerData as Partial<ReadThreadData> | null)?.spillwayReadThread === true) new ReadThreadServer(parentPort);
