/**
 * When the tokenizer thread stops for want of work the hub is idle: the main heap's share of the work is
 * given back then (a full collection), so the hub does not idle on whatever V8 happened to keep.
 */
import { expect, it } from 'vitest';
import { collectGarbage } from '../../electron/core/tokens/collect-garbage.js';
import { threadData } from '../../electron/core/tokens/token-counter.js';
import { TokenCountWorker } from '../../electron/core/tokens/token-count-worker.js';

it('calls back once the idle thread has stopped, not while it runs', async () => {
  let stopped!: () => void;
  const idle = new Promise<void>((resolve) => (stopped = resolve));
  let runningWhenCalled: boolean | undefined;
  const worker = new TokenCountWorker({
    thread: threadData('o200k_base'),
    idleMs: 50,
    onIdleStop: () => {
      runningWhenCalled = worker.running;
      stopped();
    },
  });
  const reply = await worker.request({ op: 'count', text: 'hello world' });
  expect(reply).toBeDefined();
  expect(worker.running).toBe(true);
  await idle;
  expect(runningWhenCalled).toBe(false);
  await worker.close();
});

it('collectGarbage gives the heap back', async () => {
  // Made and dropped inside the function: unreachable once it returns.
  const before = (() => {
    const junk = Array.from({ length: 400_000 }, (_, i) => ({ i, text: `item ${i}` }));
    expect(junk.length).toBe(400_000);
    return process.memoryUsage().heapUsed;
  })();
  await collectGarbage();
  expect(process.memoryUsage().heapUsed).toBeLessThan(before - 20_000_000);
});
