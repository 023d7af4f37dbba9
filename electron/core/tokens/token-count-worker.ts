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
const encoder = require(workerData.encoderPath);
// Special-token text such as <|endoftext|> in tool output is plain text here (issue 4).
const options = { disallowedSpecial: new Set() };
parentPort.on('message', (message) => {
  try {
    parentPort.postMessage({ id: message.id, tokens: encoder.countTokens(message.text, options) });
  } catch (error) {
    parentPort.postMessage({ id: message.id, error: String(error && error.message || error) });
  }
});
`;

interface WorkerReply {
  id: number;
  tokens?: number;
  error?: string;
}

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

  /** Exact token count of `text`, computed off the calling thread. */
  count(text: string): Promise<number> {
    const worker = this.#ensureWorker();
    const id = this.#nextId++;
    return new Promise<number>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ id, text });
    });
  }

  /** Stops the worker; pending counts are rejected. */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = null;
    if (worker) await worker.terminate();
    this.#failAll(new Error('token count worker closed'));
  }

  #ensureWorker(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { encoderPath: this.#encoderPath } });
    worker.unref();
    worker.on('message', (reply: WorkerReply) => {
      const pending = this.#pending.get(reply.id);
      if (!pending) return;
      this.#pending.delete(reply.id);
      if (this.#pending.size === 0) worker.unref();
      if (reply.error !== undefined) pending.reject(new Error(reply.error));
      else pending.resolve(reply.tokens ?? 0);
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
