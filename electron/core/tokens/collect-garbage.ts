/**
 * A full garbage collection of the process's heap, asked for when the hub goes idle (the tokenizer thread
 * stopped after its idle time, see token-count-worker.ts). Left alone, V8 keeps the space a burst of work
 * took for many seconds or minutes: the hub idled anywhere from 90 to 123 MB after the same start, and at
 * 88–99 MB with this. Making the function costs about a millisecond once; the collection runs as a task of
 * its own (`execution: 'async'`), a few milliseconds of the main thread at a moment nothing is asked of it.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Collect = (options: { type: 'major'; execution: 'async' }) => Promise<void> | void;

let collect: Collect | undefined;

/** Asks for the collection; settles once it has run (never rejects). */
export function collectGarbage(): Promise<void> {
  try {
    // The way to reach V8's gc() in a running process: the flag, then a context that has it.
    collect ??= (setFlagsFromString('--expose-gc'), runInNewContext('gc') as Collect);
    return Promise.resolve(collect({ type: 'major', execution: 'async' })).catch(() => undefined);
  } catch {
    // A runtime without it (an embedder that refuses the flag) keeps V8's own timing.
    return Promise.resolve();
  }
}
