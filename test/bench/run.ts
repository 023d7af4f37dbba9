/** `npm run bench`: every benchmark in one run (not part of `npm test`). */
import { bridgeBench } from './bridge-bench.js';
import { dispatchBench } from './dispatch-bench.js';
import { hubBench } from './hub-bench.js';

await hubBench();
await bridgeBench();
await dispatchBench();
