/**
 * A hard deadline for synchronous work on the main thread. The linear-time engine keeps a pattern from
 * backtracking, but linear is not always fast: `a[ab]{500}[^ab]` costs ~2.5 s per megabyte on re2js's
 * NFA. node:vm's `timeout` interrupts whatever JavaScript runs (V8 TerminateExecution from a watchdog
 * thread), functions of this realm included, so a stalled match is cut off instead of freezing the hub.
 */
import { createContext, Script } from 'node:vm';
import type { Context } from 'node:vm';

/** Work stopped at its deadline. */
export class DeadlineExceeded extends Error {
  override readonly name = 'DeadlineExceeded';
  constructor(readonly ms: number) {
    super(`stopped after ${ms} ms`);
  }
}

const RUN = new Script('run()', { filename: 'spillway-deadline.js' });
let context: Context | undefined;
let running = false;

/**
 * Runs `work` now and returns what it returns; throws DeadlineExceeded if it runs longer than `ms`. A
 * call made while another runs stays under the outer deadline. Interrupted work leaves its objects as they
 * were at that moment: callers drop (or rebuild) what it was filling.
 */
export function runWithin<T>(ms: number, work: () => T): T {
  if (running) return work();
  context ??= createContext(Object.create(null) as object);
  let value: T | undefined;
  context.run = () => {
    value = work();
  };
  running = true;
  try {
    RUN.runInContext(context, { timeout: Math.max(1, Math.ceil(ms)) });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw new DeadlineExceeded(ms);
    throw error;
  } finally {
    running = false;
    context.run = undefined;
  }
  return value as T;
}
