/** `npm run bench`: every benchmark in one run (not part of `npm test`). */
import { hubBench } from './hub-bench.js';

await hubBench();
