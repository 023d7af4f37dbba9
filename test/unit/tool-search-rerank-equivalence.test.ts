/**
 * The learned re-ranker's features the cheap way (issue 17): search scores the re-ranker's ablations in
 * the same pass as the ranker (search-score.ts). Here each ablation is scored the straightforward way — a
 * search of its own over the whole index, with the ablation's weights, its scores over its own best, as
 * search-ltr-features.ts computed them when the model was learned — and the features and the re-ranked
 * hits must be the same, to the bit, on every tuning query of the golden set. The held-out queries are
 * not read here: nothing of theirs is printed or compared.
 */
import { describe, expect, it } from 'vitest';
import { ablations, RERANK_TOP, rerankFeatures, rerankOrder } from '../../electron/core/policy/search-rerank.js';
import { stems } from '../../electron/core/policy/search-terms.js';
import { DEFAULT_WEIGHTS } from '../../electron/core/policy/search-weights.js';
import { ToolSearch, type SearchableTool, type ToolHit } from '../../electron/core/policy/tool-search.js';
import { loadQueries, loadTools } from '../bench/search-eval.js';

const TOOLS = loadTools();
const TUNING = loadQueries().filter((q) => q.split === 'tune');
const toolByName = new Map(TOOLS.map((t) => [t.name, t]));
const serverStems = new Set(TOOLS.flatMap((t) => stems(t.server)));

/** The ranker alone, and the ranker with each part left out, each a search of its own. */
const plain = new ToolSearch(DEFAULT_WEIGHTS);
const ablated = ablations(DEFAULT_WEIGHTS).map(({ weights }) => new ToolSearch(weights));

/** Every matching tool's score under each ablation over that ablation's best (both rounded, as hits show them). */
function referenceParts(query: string): Map<string, number>[] {
  return ablated.map((search) => {
    const hits = search.search(TOOLS, query, TOOLS.length);
    const best = hits[0]?.score || 1;
    return new Map(hits.map((h) => [h.name, h.score / best]));
  });
}

/** The ranker's top hits, their features from the ablations scored one by one, and the re-ranked hits. */
function reference(query: string, limit: number): { features: { name: string; features: number[] }[]; hits: ToolHit[] } {
  const ranked = plain.search(TOOLS, query, Math.max(limit, RERANK_TOP));
  const head = ranked.slice(0, RERANK_TOP);
  const x = rerankFeatures(
    query,
    head.map((hit) => ({ hit, tool: toolByName.get(hit.name) as SearchableTool })),
    serverStems,
    referenceParts(query),
  );
  const reordered = head.length > 1 ? rerankOrder(x).map((i, k) => ({ ...head[i], score: head[k].score })) : head;
  return { features: head.map((h, k) => ({ name: h.name, features: x[k] })), hits: [...reordered, ...ranked.slice(RERANK_TOP)].slice(0, limit) };
}

describe('the re-ranker scored in one pass', () => {
  it('reads exact words only as the ablation with related words and prefixes weighed 0 does', () => {
    // The one-pass ablation keeps a reached stem of weight 1 and weighs the rest 0; a search with the
    // ablation's weights does the same only while no related word or prefix weighs exactly 1.
    const { prefix, nearForm, related } = DEFAULT_WEIGHTS;
    expect([prefix, nearForm, related.strong, related.weak, related.wordnet]).not.toContain(1);
  });

  it('has the tuning queries to compare on', () => {
    expect(TUNING.length).toBeGreaterThanOrEqual(800);
  });

  const fast = new ToolSearch(DEFAULT_WEIGHTS, { rerank: true });

  it('gives every tuning query the same features, to the bit, and the same re-ranked hits as the reference', () => {
    let compared = 0;
    let moved = 0;
    for (const { query } of TUNING) {
      const want = reference(query, 25);
      const got = fast.features(TOOLS, query);
      // toEqual compares numbers with Object.is: a feature off in its last bit fails.
      expect(got, query).toEqual(want.features);
      compared += got.length;
      for (const limit of [1, 10, 25]) expect(fast.search(TOOLS, query, limit), `${query} (limit ${limit})`).toEqual(want.hits.slice(0, limit));
      if (
        want.hits.map((h) => h.name).join() !==
        plain
          .search(TOOLS, query, 25)
          .map((h) => h.name)
          .join()
      )
        moved++;
    }
    expect(compared).toBeGreaterThan(TUNING.length * 10);
    // The re-ranker moves hits on many queries, or the comparison would say little about it.
    expect(moved).toBeGreaterThan(TUNING.length / 10);
  });
});
