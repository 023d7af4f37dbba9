/**
 * `npm run bench`: every benchmark in one run (not part of `npm test`), then one summary of every figure
 * as a ratio, with the goals of issue 12 and whether this run met them.
 * Knobs: BENCH_CALLS (calls per row and load, default 1000), BENCH_ROUNDS (interleaved rounds, 10),
 * BENCH_WARMUP, BENCH_BIG_ROUNDS (rounds of the 1 MB comparison, 21), BENCH_BIG_WARMUP (its untimed rounds
 * first, 5), BENCH_SETTLE_MS (the wait before a memory reading, 15000), BENCH_ONLY (a comma list of parts:
 * http, bridge, memory, lazy, spill, dispatch, search, toon).
 * Quick run: `BENCH_CALLS=200 BENCH_SETTLE_MS=2000 npm run bench`.
 */
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProcessGroup } from './bench-processes.js';
import { CALLS, ROUNDS } from './measure.js';
import { Report } from './report.js';

type Part = (g: ProcessGroup, tmp: string, report: Report) => Promise<unknown>;
// Loaded one by one: a part whose imports are broken mid-change fails alone, in the summary.
const parts: [string, () => Promise<Part>][] = [
  ['memory', async () => (await import('./memory-bench.js')).memoryBench],
  ['lazy', async () => (await import('./lazy-bench.js')).lazyBench],
  ['http', async () => (await import('./http-bench.js')).httpBench],
  ['bridge', async () => (await import('./bridge-bench.js')).bridgeBench],
  ['spill', async () => (await import('./spill-bench.js')).spillBench],
  ['dispatch', async () => (await import('./dispatch-bench.js')).dispatchBench],
  ['search', async () => (await import('./search-bench.js')).searchBench],
  ['toon', async () => (await import('./toon-bench.js')).toonBench],
];
const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());

const report = new Report();
const tmp = await mkdtemp(join(tmpdir(), 'spillway-bench-'));
// On 'exit' rather than in a finally: also when Ctrl-C stops the run (see ProcessGroup).
process.on('exit', () => {
  try {
    rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
  } catch {
    // a child killed a moment ago may still be writing its last file: leave the folder to the OS
  }
});
const began = performance.now();
for (const [name, load] of parts) {
  if (only && !only.includes(name)) continue;
  // Each part gets its own group: its processes are gone before the next part is timed.
  const g = new ProcessGroup();
  try {
    const part = await load();
    await part(g, tmp, report);
  } catch (err) {
    report.failed(name, err);
    process.exitCode = 1;
  } finally {
    await g.stopAll();
  }
}
report.print(
  `One run on ${availableParallelism()} CPUs, node ${process.version}, ${new Date().toISOString().slice(0, 10)}; ` +
    `${CALLS} calls per row and load in ${ROUNDS} interleaved rounds; medians; ${((performance.now() - began) / 1000).toFixed(0)} s in all.`,
);
