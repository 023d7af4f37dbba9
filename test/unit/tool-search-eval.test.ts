/**
 * The floor of tool search (issue 17): recall@5 and MRR on the golden set (test/fixtures/search/) may not
 * drop below what the ranker reached when it was last tuned, minus a small margin. Raise the floors when
 * the ranker gets better; `npm run bench` prints the full table.
 */
import { describe, expect, it } from 'vitest';
import { ToolSearch } from '../../electron/core/policy/tool-search.js';
import { evaluate, loadQueries, loadTools } from '../bench/search-eval.js';

/** Reached: tuned part recall@5 0.940, MRR 0.826; held-out part recall@5 0.845, MRR 0.751. */
const FLOORS = {
  tune: { recall5: 0.91, mrr: 0.8 },
  heldout: { recall5: 0.81, mrr: 0.72 },
};

describe('tool search on the golden set', () => {
  const tools = loadTools();
  const queries = loadQueries();
  const search = new ToolSearch();
  const rank = (query: string) => search.search(tools, query, 10).map((h) => h.name);

  it('has the queries and tools it claims: at least 150 queries, a held-out third, every label a real tool', () => {
    expect(queries.length).toBeGreaterThanOrEqual(150);
    expect(queries.filter((q) => q.split === 'heldout').length).toBeGreaterThanOrEqual(Math.floor(queries.length / 3));
    const names = new Set(tools.map((t) => t.name));
    expect(names.size).toBe(tools.length);
    for (const q of queries) for (const name of Object.keys(q.relevant)) expect(names, q.query).toContain(name);
  });

  it.each(['tune', 'heldout'] as const)('%s part: recall@5 and MRR stay above their floors', (split) => {
    const m = evaluate(
      rank,
      queries.filter((q) => q.split === split),
    );
    expect(m.recall5, `misses: ${m.misses.map((x) => x.query).join(' | ')}`).toBeGreaterThanOrEqual(FLOORS[split].recall5);
    expect(m.mrr).toBeGreaterThanOrEqual(FLOORS[split].mrr);
  });
});
