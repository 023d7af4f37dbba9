/**
 * The read thread's program: read_result ops on the largest spilled texts, and every grep and query
 * (read-result.ts decides which), so that reading, splitting into lines and parsing tens of megabytes, or
 * running a model's slow pattern or query, never holds the hub's main thread (audit s12: each read of a
 * 51 MB JSON held it for ~0.9 s; audit s13: each grep, up to its 2 s deadline). It reads the text file
 * itself and keeps the last text it read, with its lines and JSON once made, for the model's next read of
 * it: the thread is stopped when idle (read-thread-host.ts), which gives all of it back.
 *
 * Loaded only in a worker (read-thread-host.ts); the main thread imports its types alone.
 */
import { readFile } from 'node:fs/promises';
import { isMainThread, parentPort } from 'node:worker_threads';
import type { ResultEncoding } from '../../../shared/policy.js';
import { answerRead, type DocumentAnswer, type DocumentRead } from './read-document.js';
import { largeLinesView } from './read-encoding.js';
import { ReadOpError } from './read-ops.js';
import { SpillDocument } from './spill-document.js';

export interface ReadThreadRequest {
  id: number;
  /** The entry's text file (the store checked that the entry is live and its files complete). */
  path: string;
  encoding: ResultEncoding;
  read: DocumentRead;
}

export type ReadThreadReply =
  | { id: number; answer: DocumentAnswer }
  /** `readOp`: a ReadOpError (the model can fix its request); `code`: a file system error's code. */
  | { id: number; error: string; readOp?: true; code?: string };

/** The last text read: a spilled file never changes under its handle (handles name their content). */
let last: { path: string; doc: Promise<SpillDocument> } | undefined;

function documentAt(path: string): Promise<SpillDocument> {
  if (last?.path !== path) {
    const doc = readFile(path, 'utf8').then((text) => new SpillDocument(text));
    // A failed read is not kept: the next request tries the file again.
    doc.catch(() => {
      if (last?.doc === doc) last = undefined;
    });
    last = { path, doc };
  }
  return last.doc;
}

async function answer(request: ReadThreadRequest): Promise<ReadThreadReply> {
  try {
    const doc = await documentAt(request.path);
    return { id: request.id, answer: await answerRead(doc, request.read, (d) => largeLinesView(d, request.encoding)) };
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

if (!isMainThread && parentPort) {
  const port = parentPort;
  port.on('message', (request: ReadThreadRequest) => {
    void answer(request).then((reply) => port.postMessage(reply));
  });
}
