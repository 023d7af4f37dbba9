import { Worker } from 'node:worker_threads';

/**
 * Source of the counting worker, run with `new Worker(source, {eval: true})`.
 *
 * Why an eval'd source string and not a worker file: a `.ts` worker file would need `tsx` under vitest
 * and its compiled `.js` twin in dist/, and a plain `.mjs` file is not copied to dist/ by `tsc`. A string
 * runs the same from TS source, from dist/ and from a bundle. The encoder module is resolved by the
 * parent (an absolute path) and `require`d here, so the worker does not depend on its working directory.
 */
const WORKER_SOURCE = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
// Exact counts are bookkeeping: they must not take a CPU from the calls being relayed. Only on Linux does
// setpriority(0) mean the calling thread; on macOS and Windows it would lower the whole app.
if (process.platform === 'linux') {
  try { require('node:os').setPriority(19); } catch {}
}
const encoder = require(workerData.encoderPath);
// Special-token text such as <|endoftext|> in tool output is plain text here (issue 4).
const options = { disallowedSpecial: new Set() };
const countOne = (item) => {
  try {
    return { id: item.id, tokens: encoder.countTokens(item.text, options) };
  } catch (error) {
    return { id: item.id, error: String(error && error.message || error) };
  }
};
parentPort.on('message', (message) => {
  if (message.batch) parentPort.postMessage({ batch: message.batch.map(countOne) });
  else parentPort.postMessage(countOne(message));
});
`;

interface WorkerReply {
  id: number;
  tokens?: number;
  error?: string;
}

/** Small texts are sent together: one message per tool call cost more main-thread time than the count. */
const BATCH_MAX_CHARS = 64 * 1024;
const BATCH_DELAY_MS = 20;

interface Pending {
  resolve: (tokens: number) => void;
  reject: (error: Error) => void;
}

/**
 * One lazily started, long-lived worker thread that counts tokens exactly. It is unref'd while idle so
 * it never keeps the process alive; a crashed worker fails its pending counts and is restarted on the
 * next request.
 */
export class TokenCountWorker {
  readonly #encoderPath: string;
  #worker: Worker | null = null;
  #nextId = 1;
  readonly #pending = new Map<number, Pending>();

  constructor(encoderPath: string) {
    this.#encoderPath = encoderPath;
  }

  #batch: { id: number; text: string }[] = [];
  #batchChars = 0;
  #batchTimer: NodeJS.Timeout | undefined;

  /** Exact token count of `text`, computed off the calling thread (small texts within ~20 ms, batched). */
  count(text: string): Promise<number> {
    const worker = this.#ensureWorker();
    const id = this.#nextId++;
    return new Promise<number>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.ref();
      if (text.length > BATCH_MAX_CHARS) {
        worker.postMessage({ id, text });
        return;
      }
      this.#batch.push({ id, text });
      this.#batchChars += text.length;
      if (this.#batchChars > BATCH_MAX_CHARS) this.#sendBatch();
      else this.#batchTimer ??= setTimeout(() => this.#sendBatch(), BATCH_DELAY_MS);
    });
  }

  #sendBatch(): void {
    clearTimeout(this.#batchTimer);
    this.#batchTimer = undefined;
    const batch = this.#batch;
    this.#batch = [];
    this.#batchChars = 0;
    if (batch.length > 0) this.#ensureWorker().postMessage({ batch });
  }

  /** Stops the worker; pending counts are rejected. */
  async close(): Promise<void> {
    clearTimeout(this.#batchTimer);
    this.#batchTimer = undefined;
    this.#batch = [];
    this.#batchChars = 0;
    const worker = this.#worker;
    this.#worker = null;
    if (worker) await worker.terminate();
    this.#failAll(new Error('token count worker closed'));
  }

  #ensureWorker(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { encoderPath: this.#encoderPath } });
    worker.unref();
    worker.on('message', (message: WorkerReply | { batch: WorkerReply[] }) => {
      for (const reply of 'batch' in message ? message.batch : [message]) {
        const pending = this.#pending.get(reply.id);
        if (!pending) continue;
        this.#pending.delete(reply.id);
        if (reply.error !== undefined) pending.reject(new Error(reply.error));
        else pending.resolve(reply.tokens ?? 0);
      }
      if (this.#pending.size === 0) worker.unref();
    });
    worker.on('error', (error) => {
      if (this.#worker === worker) this.#worker = null;
      this.#failAll(error instanceof Error ? error : new Error(String(error)));
    });
    worker.on('exit', (code) => {
      if (this.#worker === worker) this.#worker = null;
      this.#failAll(new Error(`token count worker exited with code ${code}`));
    });
    this.#worker = worker;
    return worker;
  }

  #failAll(error: Error): void {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of pending) p.reject(error);
  }
}
