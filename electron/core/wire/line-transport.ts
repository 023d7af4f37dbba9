/**
 * The server side of newline-delimited JSON-RPC over a pair of streams — the bridge socket, or this
 * process's stdin/stdout for `spillway serve --stdio` — framed in linear time by our LineFramer instead
 * of the SDK's StdioServerTransport, whose read buffer re-joins and zod-parses every message (issue 6).
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LineFramer } from './line-framer.js';
import { DeliveryError, OrderedDelivery } from './ordered-delivery.js';

export interface LineTransportOptions {
  maxMessageBytes?: number;
  /** A line that is not JSON-RPC (reported, never fatal). */
  onNoise?: (line: string) => void;
  /** End the output on close (a socket); stdout is left open. */
  endOutputOnClose?: boolean;
}

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #input: Readable;
  readonly #output: Writable;
  readonly #framer: LineFramer;
  readonly #endOutput: boolean;
  #closed = false;

  constructor(input: Readable, output: Writable, options: LineTransportOptions = {}) {
    this.#input = input;
    this.#output = output;
    this.#endOutput = options.endOutputOnClose ?? false;
    this.#framer = new LineFramer({
      maxMessageBytes: options.maxMessageBytes,
      onMessage: (message) => this.onmessage?.(message),
      onNoise: (line) => options.onNoise?.(line),
      onError: (error) => this.onerror?.(error),
      // A handler that throws is reported, as a DeliveryError (the hub's session logs it); the lines after it are still read.
      order: new OrderedDelivery((error) => this.onerror?.(new DeliveryError(error))),
    });
  }

  async start(): Promise<void> {
    this.#input.on('data', (chunk: Buffer) => this.#framer.push(chunk));
    this.#input.on('end', () => {
      this.#framer.end();
      this.#finish();
    });
    this.#input.on('close', () => this.#finish());
    this.#input.on('error', (err) => this.onerror?.(err));
    if (this.#output !== (this.#input as unknown)) this.#output.on('error', (err) => this.onerror?.(err));
  }

  /** Bytes read before the transport started (e.g. after a handshake line); then reading resumes. */
  feed(rest: Buffer): void {
    if (rest.length > 0) this.#framer.push(rest);
    this.#input.resume();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('connection closed'));
    return new Promise((resolve) => {
      if (this.#output.write(`${JSON.stringify(message)}\n`)) return resolve();
      // Backpressure: wait for the reader, but never past the connection's end.
      const done = () => {
        this.#output.off('drain', done);
        this.#output.off('close', done);
        resolve();
      };
      this.#output.once('drain', done);
      this.#output.once('close', done);
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    if (this.#endOutput) this.#output.end();
    else this.#input.pause();
    this.#finish();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#framer.reset();
    this.onclose?.();
  }
}
