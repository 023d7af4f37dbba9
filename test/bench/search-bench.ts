/**
 * Tool-search part (issue 17): the ranker behind `spillway__dispatch` search scored on the golden set
 * (test/fixtures/search/: 171 tools of 8 real servers, queries with graded labels), the tuned and the
 * held-out part apart, and the time of one search over 1,000 tools (the real ones replicated under other
 * server names). Runs in process on the TypeScript sources: nothing here is spawned.
 */
import type { ProcessGroup } from './bench-processes.js';
import { median } from './measure.js';
import type { Report } from './report.js';
import { evaluate, loadQueries, loadTools, synthesizeTools, type Metrics } from './search-eval.js';
import { ToolSearch } from '../../electron/core/policy/tool-search.js';

const LATENCY_TOOLS = 1000;
const LATENCY_ROUNDS = 5;

const fixed = (n: number) => n.toFixed(3);
const row = (label: string, m: Metrics) => [
  label,
  String(m.queries),
  fixed(m.recall1),
  fixed(m.recall5),
  fixed(m.recall10),
  fixed(m.mrr),
  fixed(m.ndcg10),
];

export async function searchBench(_g: ProcessGroup, _tmp: string, report: Report): Promise<void> {
  const tools = loadTools();
  const queries = loadQueries();
  // Dispatch's search: the ranker and the learned re-ranker (search-rerank.ts, learned on the tuning part only).
  const search = new ToolSearch(undefined, { rerank: true });
  const rank = (query: string) => search.search(tools, query, 10).map((h) => h.name);
  const tuned = evaluate(
    rank,
    queries.filter((q) => q.split === 'tune'),
  );
  const heldOut = evaluate(
    rank,
    queries.filter((q) => q.split === 'heldout'),
  );
  const all = evaluate(rank, queries);
  // The ranker alone, measured beside it.
  const alone = new ToolSearch();
  const rankAlone = (query: string) => alone.search(tools, query, 10).map((h) => h.name);
  const [tunedAlone, heldOutAlone] = (['tune', 'heldout'] as const).map((split) =>
    evaluate(
      rankAlone,
      queries.filter((q) => q.split === split),
    ),
  );
  // The held-out queries by batch: the first (every third of ids 1-174) has had its misses named in notes
  // and the README since session 5; the second (ids 233-266) and the third (ids 380-419) were written in
  // session 7, the fourth (ids 520-559), fifth (ids 960-999) and sixth (ids 1100 on) in session 8, each
  // committed before the ranker first ran on it. The goals are judged on all of them.
  const batches = ([undefined, 2, 3, 4, 5, 6] as const).map((batch) =>
    evaluate(
      rank,
      queries.filter((q) => q.split === 'heldout' && q.batch === batch),
    ),
  );
  const batchNames = ['… first batch', '… second batch', '… third batch', '… fourth batch', '… fifth batch', '… sixth batch (new)'];

  const many = synthesizeTools(LATENCY_TOOLS);
  const latency = (timed: ToolSearch) => {
    timed.search(many, 'warm up the index', 10);
    const perSearch: number[] = [];
    for (let round = 0; round < LATENCY_ROUNDS; round++) {
      for (const q of queries) {
        const began = performance.now();
        timed.search(many, q.query, 10);
        perSearch.push(performance.now() - began);
      }
    }
    perSearch.sort((a, b) => a - b);
    return { p50: median(perSearch), p99: perSearch[Math.floor(perSearch.length * 0.99)] };
  };
  const { p50, p99 } = latency(new ToolSearch(undefined, { rerank: true }));
  const faster = latency(new ToolSearch());
  const indexBegan = performance.now();
  new ToolSearch().search(many, 'index build', 1);
  const buildMs = performance.now() - indexBegan;

  report.table(
    `Tool search: ${tools.length} tools of real servers, ${all.queries} golden queries (graded)`,
    ['queries', 'n', 'recall@1', 'recall@5', 'recall@10', 'MRR', 'nDCG@10'],
    [
      row('tuned on', tuned),
      row('held out', heldOut),
      ...batches.map((m, i) => row(batchNames[i], m)),
      row('all', all),
      row('tuned on, ranker alone', tunedAlone),
      row('held out, ranker alone', heldOutAlone),
    ],
    [
      `Dispatch's search (the ranker and its learned re-ranker) over ${many.length} tools: p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms per search; first search (index build) ${buildMs.toFixed(0)} ms.`,
      `The ranker alone: p50 ${faster.p50.toFixed(2)} ms, p99 ${faster.p99.toFixed(2)} ms per search.`,
      // Only counted: printing the held-out misses would let the next round of tuning see them.
      `No right tool in the top 5: ${tuned.misses.length} of ${tuned.queries} tuning queries, ${heldOut.misses.length} of ${heldOut.queries} held-out ones (not named here, so that tuning never sees them).`,
    ],
  );
  report.goal('tool search recall@5 >= 0.9 (held out)', fixed(heldOut.recall5), heldOut.recall5 >= 0.9, 17);
  report.goal('tool search MRR >= 0.8 (held out)', fixed(heldOut.mrr), heldOut.mrr >= 0.8, 17);
  report.goal(`tool search under 10 ms for ${LATENCY_TOOLS} tools (p99)`, `${p99.toFixed(2)} ms`, p99 < 10, 17);
}
