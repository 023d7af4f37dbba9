import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ResultEncoding } from '../../../shared/policy.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { DocumentAnswer, DocumentRead } from './read-document.js';
import { ReadOpError } from './read-ops.js';
import type { CountRequest, FromReadThread, ReadThreadData, ReadThreadRequest, ToReadThread } from './read-thread.js';

/**
 * How long the read thread is kept with nothing to do: long enough for a model's run of reads of one
 * result (the thread keeps the texts it read with their lines and JSON), short enough not to hold hundreds
 * of megabytes for long.
 */
export const READ_THREAD_IDLE_MS = 30_000;

/** An op's answer from the thread, and the view of the text's lines it chose (ReadThreadReply `view`). */
export interface ThreadAnswer {
  answer: DocumentAnswer;
  /** A TOON view's header, or null for the JSON lines; undefined when the op chose no view. */
  view?: string | null;
}

interface Pending {
  resolve: (answer: ThreadAnswer) => void;
  reject: (error: Error) => void;
  counter?: TokenCounter;
}

/**
 * The read thread (read-thread.ts), started on first use and stopped after `idleMs` without work, like
 * the tokenizer thread (tokens/token-count-worker.ts). It is unref'd while idle so it never keeps the
 * process alive; a thread that fails (out of memory on a huge JSON) fails its pending reads and is
 * started again on the next one.
 */
export class ReadThread {
  readonly #idleMs: number;
  #worker: Worker | null = null;
  #nextId = 1;
  readonly #pending = new Map<number, Pending>();
  #idleTimer: NodeJS.Timeout | undefined;

  constructor(options: { idleMs?: number } = {}) {
    this.#idleMs = options.idleMs ?? READ_THREAD_IDLE_MS;
  }

  /** Whether the thread is running. */
  get running(): boolean {
    return this.#worker !== null;
  }

  /**
   * Answers `read` on the text file at `path`. With `counter`, the thread may choose the view of a JSON
   * text's lines as linesView does here (read-encoding.ts), asking this counter for the token counts it
   * needs; without it, only a text's size decides. A request the model can fix rejects with ReadOpError, a
   * file system error with an Error carrying its `code` (ENOENT: the files are gone).
   */
  read(path: string, encoding: ResultEncoding, read: DocumentRead, counter?: TokenCounter): Promise<ThreadAnswer> {
    const worker = this.#ensureWorker();
    const request: ReadThreadRequest = { id: this.#nextId++, path, encoding, read, ...(counter ? { counts: true as const } : {}) };
    return new Promise<ThreadAnswer>((resolve, reject) => {
      this.#pending.set(request.id, { resolve, reject, counter });
      worker.ref();
      worker.postMessage(request satisfies ToReadThread);
    });
  }

  /** Stops the thread; pending reads are rejected. */
  async close(): Promise<void> {
    clearTimeout(this.#idleTimer);
    const worker = this.#worker;
    this.#worker = null;
    if (worker) await worker.terminate();
    this.#failAll(new Error('the read thread was stopped'));
  }

  #ensureWorker(): Worker {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    if (this.#worker) return this.#worker;
    // None of this process's flags (a loader such as tsx's is set up by the program when it needs one).
    const worker = new Worker(readThreadProgram(import.meta.url), {
      eval: true,
      execArgv: [],
      workerData: { spillwayReadThread: true } satisfies ReadThreadData,
    });
    worker.unref();
    worker.on('message', (reply: FromReadThread) => {
      if ('count' in reply) {
        this.#count(worker, reply);
        return;
      }
      const pending = this.#pending.get(reply.id);
      if (pending) {
        this.#pending.delete(reply.id);
        if ('answer' in reply) pending.resolve({ answer: reply.answer, ...(reply.view !== undefined ? { view: reply.view } : {}) });
        else if (reply.readOp) pending.reject(new ReadOpError(reply.error));
        else pending.reject(Object.assign(new Error(reply.error), reply.code ? { code: reply.code } : {}));
      }
      if (this.#pending.size === 0) {
        worker.unref();
        this.#armIdle(worker);
      }
    });
    worker.on('error', (error) => {
      if (this.#worker === worker) this.#worker = null;
      this.#failAll(new Error(`the read thread failed: ${error instanceof Error ? error.message : String(error)}`));
    });
    worker.on('exit', (code) => {
      if (this.#worker !== worker) return; // stopped on purpose
      this.#worker = null;
      this.#failAll(new Error(`the read thread stopped (exit code ${code})`));
    });
    this.#worker = worker;
    return worker;
  }

  /** Counts for the thread with the counter of the request that asks (its tokenizer thread counts: little is done here). */
  #count(worker: Worker, ask: CountRequest): void {
    const counter = this.#pending.get(ask.id)?.counter;
    const reply = (message: ToReadThread) => {
      if (this.#worker === worker) worker.postMessage(message);
    };
    if (!counter) {
      reply({ count: ask.count, error: 'no token counter for this read' });
      return;
    }
    counter.quickCount(ask.text).then(
      (tokens) => reply({ count: ask.count, tokens }),
      (error: unknown) => reply({ count: ask.count, error: error instanceof Error ? error.message : String(error) }),
    );
  }

  #armIdle(worker: Worker): void {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = undefined;
      if (this.#worker !== worker || this.#pending.size > 0) return;
      this.#worker = null;
      void worker.terminate();
    }, this.#idleMs);
    this.#idleTimer.unref();
  }

  #failAll(error: Error): void {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of pending) p.reject(error);
  }
}

/**
 * The worker's program, given the URL of the module next to read-thread (this one's `import.meta.url`):
 * an import of read-thread.js, which works the same from dist/ and from the packaged app, where
 * dist/electron is unpacked from app.asar (electron-builder.yml asarUnpack) and imported from there. From
 * TypeScript sources (tests, `node --import tsx`) it is read-thread.ts, with tsx's loader set up first.
 */
export function readThreadProgram(hostUrl: string): string {
  const fromSource = hostUrl.endsWith('.ts');
  const thread = new URL(`./read-thread.${fromSource ? 'ts' : 'js'}`, hostUrl).href.replace('/app.asar/', '/app.asar.unpacked/');
  const load = `import(${JSON.stringify(thread)})`;
  const program = fromSource ? `import(${JSON.stringify(tsxApi(hostUrl))}).then((tsx) => { tsx.register(); return ${load}; })` : load;
  // A failed import is thrown in the thread, where it ends the thread with an 'error' event.
  return `${program}.catch((error) => { setImmediate(() => { throw error; }); });\n`;
}

/**
 * tsx's ESM API (its `register` sets up the loader in the thread that calls it), by its package's exports:
 * its CommonJS twin does not load from a worker's program.
 */
function tsxApi(hostUrl: string): string {
  const manifest = createRequire(hostUrl).resolve('tsx/package.json');
  const exports = (JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> }).exports;
  return new URL(exports['./esm/api']!.import.default, pathToFileURL(manifest)).href;
}
