/**
 * The floor of tool search (issue 17): recall@5 and MRR on the golden set (test/fixtures/search/) may not
 * drop below what the ranker reached when it was last tuned, minus a small margin. Raise the floors when
 * the ranker gets better; `npm run bench` prints the full table.
 */
import { describe, expect, it } from 'vitest';
import { ToolSearch } from '../../electron/core/policy/tool-search.js';
import { evaluate, loadQueries, loadTools } from '../bench/search-eval.js';

/**
 * Reached (session 8, after the sixth held-out batch was scored once): tuned part (887 queries) recall@5
 * 0.902, MRR 0.790; held-out part (252: batches of 58, 34, 40, 40, 40 and 40) recall@5 0.841, MRR 0.703.
 * Session 19, with the learned re-ranker (search-rerank.ts, learned on the tuning part only, the held-out
 * part scored once; dispatch's search since session 20): tuned part recall@5 0.940, MRR 0.822; held-out part recall@5 0.857, MRR 0.730.
 */
const FLOORS = {
  tune: { recall5: 0.88, mrr: 0.77 },
  heldout: { recall5: 0.82, mrr: 0.68 },
};
/** With the learned re-ranker, as dispatch searches. */
const RERANKED_FLOORS = {
  tune: { recall5: 0.92, mrr: 0.8 },
  heldout: { recall5: 0.84, mrr: 0.71 },
};

describe('tool search on the golden set', () => {
  const tools = loadTools();
  const queries = loadQueries();
  const search = new ToolSearch();
  const rank = (query: string) => search.search(tools, query, 10).map((h) => h.name);

  it('has the queries and tools it claims: at least 150 queries, at least 200 held out, every label a real tool', () => {
    expect(queries.length).toBeGreaterThanOrEqual(150);
    // Every third of the first 174 is held out, and five more held-out batches (ids 233-266, 380-419, 520-559, 960-999, 1100 on);
    // queries added to tune with (ids 175-232, 267-379, 420-519, 560-959, 1000-1099) are all 'tune'. Tuning queries keep coming, so the held-out part
    // is held to a size (six batches, 252 queries), not to a share that new tuning queries would push down.
    const heldOut = queries.filter((q) => q.split === 'heldout').length;
    expect(heldOut).toBeGreaterThanOrEqual(200);
    expect(new Set(queries.map((q) => q.id)).size).toBe(queries.length);
    const names = new Set(tools.map((t) => t.name));
    expect(names.size).toBe(tools.length);
    for (const q of queries) for (const name of Object.keys(q.relevant)) expect(names, q.query).toContain(name);
  });

  const reranked = new ToolSearch(undefined, { rerank: true });
  const cases = [
    ...(['tune', 'heldout'] as const).map((split) => ({ split, by: 'the ranker', rank, floors: FLOORS[split] })),
    ...(['tune', 'heldout'] as const).map((split) => ({
      split,
      by: 'the re-ranker',
      rank: (query: string) => reranked.search(tools, query, 10).map((h) => h.name),
      floors: RERANKED_FLOORS[split],
    })),
  ];
  it.each(cases)('$split part, $by: recall@5 and MRR stay above their floors', ({ split, rank: by, floors }) => {
    const m = evaluate(
      by,
      queries.filter((q) => q.split === split),
    );
    // Held-out misses are not named, even here: tuning must never see them.
    const misses = split === 'tune' ? m.misses.map((x) => x.query).join(' | ') : `${m.misses.length} held-out queries`;
    expect(m.recall5, `misses: ${misses}`).toBeGreaterThanOrEqual(floors.recall5);
    expect(m.mrr).toBeGreaterThanOrEqual(floors.mrr);
  });
});
