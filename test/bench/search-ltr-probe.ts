/**
 * Learning to rank for tool search (issue 17), measured: does a ranking learned on the tuning queries only
 * carry over to the held-out ones better than the hand-fitted rules and weights?
 *
 *   npx tsx test/bench/search-ltr-probe.ts ca [--heldout]      coordinate ascent over SearchWeights (~1 h)
 *   npx tsx test/bench/search-ltr-probe.ts rerank [--heldout]  a linear re-ranker of the top 20 hits
 *   npx tsx test/bench/search-ltr-probe.ts mart [--heldout] [--write]  LambdaMART re-ranker of the top 20
 *
 * (a) Coordinate ascent (RankLib style): every numeric parameter of `SearchWeights` in turn is multiplied
 *     by a few factors, keeping a change only when tuning MRR rises, pass after pass. The number of passes
 *     (the only hyperparameter) is chosen by 5-fold cross-validation inside the tuning queries.
 * (b) A re-ranker of the ranker's top 20 on the features of search-rerank.ts (the ranker's score and rank,
 *     words matched, intent against kind, server, lengths, scores of the ranker with parts left out):
 *     a linear model (pairwise logistic regression, L2 by 5-fold CV), or LambdaMART (search-ltr-trees.ts,
 *     the number of trees by 5-fold CV). `--write` writes the LambdaMART model search uses
 *     (electron/core/policy/search-rerank-model.ts; run prettier on it after).
 *
 * All are fitted on the tuning queries only, and the ranker under them runs without the re-ranker.
 * Held-out queries are scored only with `--heldout`, as a whole (never query by query), for the final
 * candidate: the rule against tuning on them.
 */
import { ToolSearch } from '../../electron/core/policy/tool-search.js';
import { DEFAULT_WEIGHTS, type SearchWeights } from '../../electron/core/policy/search-weights.js';
import { FEATURES, TOP, features, prepare, type Candidate, type Prepared } from './search-ltr-features.js';
import { writeFileSync } from 'node:fs';
import { flatTree, lambdaMart, order, predict, type Ensemble, type Row } from './search-ltr-trees.js';
import { evaluate, loadQueries, loadTools, type GoldenQuery, type Metrics } from './search-eval.js';

const FOLDS = 5;
const MAX_PASSES = 3;
const FACTORS = [0.6, 0.8, 1.25, 1.6];
/** A change must raise the objective by more than this to be kept (ties would let weights drift). */
const MIN_GAIN = 1e-4;

const tools = loadTools();
const queries = loadQueries();
const tune = queries.filter((q) => q.split === 'tune');
const fold = (q: GoldenQuery) => q.id % FOLDS;

const fixed = (n: number) => n.toFixed(3);
const line = (label: string, m: Metrics) =>
  `${label.padEnd(34)} n=${String(m.queries).padStart(4)}  R@1 ${fixed(m.recall1)}  R@5 ${fixed(m.recall5)}  R@10 ${fixed(m.recall10)}  MRR ${fixed(m.mrr)}  nDCG@10 ${fixed(m.ndcg10)}`;

// ---------------------------------------------------------------- (a) coordinate ascent over SearchWeights

/** The weights as a flat vector of numbers, by path (`fields.0.weight`, `intent.deleteOnRead`, ...). */
function flatten(value: unknown, path = ''): [string, number][] {
  if (typeof value === 'number') return [[path, value]];
  return Object.entries(value as object).flatMap(([key, v]) => flatten(v, path ? `${path}.${key}` : key));
}

function unflatten(vector: [string, number][]): SearchWeights {
  const out = structuredClone(DEFAULT_WEIGHTS) as unknown as Record<string, unknown>;
  for (const [path, v] of vector) {
    const keys = path.split('.');
    let node = out;
    for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
    node[keys[keys.length - 1]] = v;
  }
  return out as unknown as SearchWeights;
}

/** Keeps each parameter in its range: length normalization b in [0, 1], the rest positive. */
function clamp(path: string, v: number): number {
  if (path.endsWith('.b')) return Math.min(1, Math.max(0, v));
  return Math.min(10, Math.max(0.02, v));
}

function metricsFor(weights: SearchWeights, set: GoldenQuery[]): Metrics {
  const search = new ToolSearch(weights, { rerank: false });
  return evaluate((query) => search.search(tools, query, 10).map((h) => h.name), set);
}

/** Passes of coordinate ascent from `start` on `train`; `after(pass, vector)` sees the weights after each pass. */
function coordinateAscent(start: [string, number][], train: GoldenQuery[], after: (pass: number, v: [string, number][]) => void): void {
  const vector = start.map(([p, v]) => [p, v] as [string, number]);
  let best = metricsFor(unflatten(vector), train).mrr;
  for (let pass = 1; pass <= MAX_PASSES; pass++) {
    let changed = false;
    for (let i = 0; i < vector.length; i++) {
      const [path, current] = vector[i];
      let bestValue = current;
      for (const factor of FACTORS) {
        const candidate = clamp(path, current === 0 ? factor - 1 + 0.1 : current * factor);
        if (candidate === bestValue) continue;
        vector[i] = [path, candidate];
        const mrr = metricsFor(unflatten(vector), train).mrr;
        if (mrr > best + MIN_GAIN) {
          best = mrr;
          bestValue = candidate;
          changed = true;
        }
      }
      vector[i] = [path, bestValue];
    }
    console.error(`  pass ${pass}: train MRR ${fixed(best)}`);
    after(pass, vector);
    if (!changed) for (let rest = pass + 1; rest <= MAX_PASSES; rest++) after(rest, vector);
    if (!changed) break;
  }
}

function runCoordinateAscent(heldOut: boolean): void {
  const start = flatten(DEFAULT_WEIGHTS);
  console.log(`(a) coordinate ascent: ${start.length} parameters, factors ${FACTORS.join('/')}, up to ${MAX_PASSES} passes`);
  // Cross-validation: for each fold, learn on the other four and score the fold after each pass.
  const base: GoldenQuery[][] = [];
  const scoredBy = new Map<number, { rank: (q: string) => string[]; set: GoldenQuery[] }[]>();
  for (let k = 0; k < FOLDS; k++) {
    const train = tune.filter((q) => fold(q) !== k);
    const valid = tune.filter((q) => fold(q) === k);
    base.push(valid);
    console.error(`fold ${k + 1}/${FOLDS}`);
    coordinateAscent(start, train, (pass, vector) => {
      const search = new ToolSearch(unflatten(vector), { rerank: false });
      const list = scoredBy.get(pass) ?? [];
      list.push({ rank: (q) => search.search(tools, q, 10).map((h) => h.name), set: valid });
      scoredBy.set(pass, list);
    });
  }
  const defaults = new ToolSearch(DEFAULT_WEIGHTS, { rerank: false });
  console.log(
    line(
      'CV, default weights',
      evaluate((q) => defaults.search(tools, q, 10).map((h) => h.name), base.flat()),
    ),
  );
  let chosen = 0;
  let chosenMrr = -1;
  for (const [pass, folds] of [...scoredBy].sort((a, b) => a[0] - b[0])) {
    const pooled = pooledMetrics(folds);
    console.log(line(`CV, learned, ${pass} pass(es)`, pooled));
    if (pooled.mrr > chosenMrr + MIN_GAIN) [chosen, chosenMrr] = [pass, pooled.mrr];
  }
  console.log(`chosen: ${chosen} pass(es); now learned on every tuning query`);
  let final = start;
  coordinateAscent(start, tune, (pass, vector) => {
    if (pass === chosen) final = vector.map(([p, v]) => [p, v] as [string, number]);
  });
  const weights = unflatten(final);
  console.log(`learned weights: ${JSON.stringify(weights)}`);
  console.log(line('tune, default weights', metricsFor(DEFAULT_WEIGHTS, tune)));
  console.log(line('tune, learned weights', metricsFor(weights, tune)));
  if (heldOut) reportHeldOut((q) => new ToolSearchRank(weights).rank(q));
}

class ToolSearchRank {
  readonly #search: ToolSearch;
  constructor(weights: SearchWeights) {
    this.#search = new ToolSearch(weights, { rerank: false });
  }
  rank(query: string): string[] {
    return this.#search.search(tools, query, 10).map((h) => h.name);
  }
}

/** Metrics over several folds, each ranked by its own model, pooled query by query. */
function pooledMetrics(folds: { rank: (q: string) => string[]; set: GoldenQuery[] }[]): Metrics {
  // Each query is ranked by the model of its own fold: evaluate one fold at a time and weight by size.
  const parts = folds.map((f) => evaluate(f.rank, f.set));
  const n = parts.reduce((s, m) => s + m.queries, 0);
  const avg = (key: 'recall1' | 'recall5' | 'recall10' | 'mrr' | 'ndcg10') => parts.reduce((s, m) => s + m[key] * m.queries, 0) / n;
  return {
    queries: n,
    recall1: avg('recall1'),
    recall5: avg('recall5'),
    recall10: avg('recall10'),
    mrr: avg('mrr'),
    ndcg10: avg('ndcg10'),
    misses: [],
  };
}

function reportHeldOut(rank: (q: string) => string[]): void {
  const held = queries.filter((q) => q.split === 'heldout');
  const defaults = new ToolSearch(DEFAULT_WEIGHTS, { rerank: false });
  console.log(
    line(
      'HELD OUT, current ranker',
      evaluate((q) => defaults.search(tools, q, 10).map((h) => h.name), held),
    ),
  );
  console.log(line('HELD OUT, candidate', evaluate(rank, held)));
}

// ---------------------------------------------------------------- (b) a linear re-ranker of the top 20

const LAMBDAS = [0.001, 0.01, 0.1, 1];
const EPOCHS = 300;
const RATE = 0.5;

interface Model {
  mean: number[];
  scale: number[];
  w: number[];
}

/** Pairwise logistic regression: for every pair of a better and a worse candidate, P(better first). */
function train(data: Prepared[], lambda: number): Model {
  const all = data.flatMap((d) => d.candidates.map((c) => c.x));
  const dims = FEATURES.length;
  const mean = Array.from({ length: dims }, (_, j) => all.reduce((s, x) => s + x[j], 0) / all.length);
  const scale = Array.from({ length: dims }, (_, j) => Math.sqrt(all.reduce((s, x) => s + (x[j] - mean[j]) ** 2, 0) / all.length) || 1);
  const z = (x: number[]) => x.map((v, j) => (v - mean[j]) / scale[j]);
  const pairs: number[][] = [];
  for (const { q, candidates } of data) {
    const grade = (c: Candidate) => q.relevant[c.name] ?? 0;
    for (const a of candidates) for (const b of candidates) if (grade(a) > grade(b)) pairs.push(z(a.x).map((v, j) => v - z(b.x)[j]));
  }
  const w = new Array<number>(dims).fill(0);
  for (let epoch = 0; epoch < EPOCHS; epoch++) {
    const grad = w.map((wj) => lambda * wj);
    for (const d of pairs) {
      const margin = d.reduce((s, v, j) => s + v * w[j], 0);
      const p = 1 / (1 + Math.exp(margin));
      for (let j = 0; j < dims; j++) grad[j] -= (p * d[j]) / pairs.length;
    }
    for (let j = 0; j < dims; j++) w[j] -= RATE * grad[j];
  }
  return { mean, scale, w };
}

function rerank(model: Model, candidates: Candidate[]): string[] {
  const value = (c: Candidate) => c.x.reduce((s, v, j) => s + ((v - model.mean[j]) / model.scale[j]) * model.w[j], 0);
  return candidates
    .map((c) => ({ c, v: value(c) }))
    .sort((a, b) => b.v - a.v || a.c.rank - b.c.rank)
    .map(({ c }) => c.name);
}

function scoreSet(data: Prepared[], rank: (d: Prepared) => string[]): Metrics {
  const byText = new Map(data.map((d) => [d.q.query, rank(d)]));
  return evaluate(
    (query) => byText.get(query) ?? [],
    data.map((d) => d.q),
  );
}

function runRerank(heldOut: boolean): void {
  console.log(`(b) pairwise logistic re-ranker of the top ${TOP}: ${FEATURES.length} features, L2 from ${LAMBDAS.join('/')}`);
  const data = prepare(tune);
  const folds = Array.from({ length: FOLDS }, (_, k) => ({
    train: data.filter((d) => fold(d.q) !== k),
    valid: data.filter((d) => fold(d.q) === k),
  }));
  console.log(
    line(
      'CV, current ranker',
      scoreSet(data, (d) => d.candidates.map((c) => c.name)),
    ),
  );
  let chosen = LAMBDAS[0];
  let chosenMrr = -1;
  for (const lambda of LAMBDAS) {
    const parts = folds.map(({ train: t, valid }) => {
      const model = train(t, lambda);
      return { rank: (q: string) => rerank(model, valid.find((d) => d.q.query === q)?.candidates ?? []), set: valid.map((d) => d.q) };
    });
    const pooled = pooledMetrics(parts);
    console.log(line(`CV, re-ranked, L2 ${lambda}`, pooled));
    if (pooled.mrr > chosenMrr + MIN_GAIN) [chosen, chosenMrr] = [lambda, pooled.mrr];
  }
  const model = train(data, chosen);
  console.log(`chosen L2 ${chosen}; weights on standardized features:`);
  for (const [j, f] of FEATURES.entries()) console.log(`  ${f.padEnd(24)} ${model.w[j].toFixed(3)}`);
  console.log(
    line(
      'tune, re-ranked (fitted on all)',
      scoreSet(data, (d) => rerank(model, d.candidates)),
    ),
  );
  if (heldOut) {
    const search = new ToolSearch(DEFAULT_WEIGHTS, { rerank: false });
    reportHeldOut((q) => rerank(model, features(q, search.search(tools, q, TOP))));
  }
}

/** (b') The same features, scored by LambdaMART (search-ltr-trees.ts); the number of trees chosen by CV. */
const TREES = [25, 50, 100, 150];
const DEPTH = 3;
const TREE_RATE = 0.1;

const rowsOf = (d: Prepared): Row[] => d.candidates.map((c) => ({ x: c.x, rank: c.rank, label: d.q.relevant[c.name] ?? 0 }));
const martRank = (model: Ensemble, candidates: Candidate[], upTo: number) =>
  order(
    candidates,
    candidates.map((c) => predict(model, c.x, upTo)),
  ).map((c) => c.name);

/** Writes the model as the table search-rerank.ts reads (then run prettier on it). */
function writeModel(model: Ensemble, trees: number): void {
  const table = model.trees.slice(0, trees).map(flatTree);
  const text = [
    '/**',
    " * The learned re-ranker's trees (search-rerank.ts), written by `npx tsx test/bench/search-ltr-probe.ts mart --write`:",
    ` * LambdaMART, ${trees} trees of depth ${DEPTH}, learned on the tuning queries only. Each tree flat in pre-order,`,
    ' * its numbers in one string (a split is `feature threshold left... right...`, a leaf `-1 value`).',
    ' */',
    `const TREES = ${JSON.stringify(table.map((t) => t.join(' ')))};`,
    '',
    'export const RERANK_MODEL: { rate: number; trees: readonly (readonly number[])[] } = {',
    `  rate: ${model.rate},`,
    "  trees: TREES.map((tree) => tree.split(' ').map(Number)),",
    '};',
    '',
  ].join('\n');
  writeFileSync(new URL('../../electron/core/policy/search-rerank-model.ts', import.meta.url), text);
}

function runMart(heldOut: boolean): void {
  console.log(`(b') LambdaMART re-ranker of the top ${TOP}: ${FEATURES.length} features, depth ${DEPTH}, rate ${TREE_RATE}`);
  const data = prepare(tune);
  const max = TREES[TREES.length - 1];
  const folds = Array.from({ length: FOLDS }, (_, k) => {
    const valid = data.filter((d) => fold(d.q) === k);
    const model = lambdaMart(data.filter((d) => fold(d.q) !== k).map(rowsOf), max, DEPTH, TREE_RATE);
    return { valid, model };
  });
  console.log(
    line(
      'CV, current ranker',
      scoreSet(data, (d) => d.candidates.map((c) => c.name)),
    ),
  );
  let chosen = TREES[0];
  let chosenMrr = -1;
  for (const trees of TREES) {
    const parts = folds.map(({ valid, model }) => ({
      rank: (q: string) => martRank(model, valid.find((d) => d.q.query === q)?.candidates ?? [], trees),
      set: valid.map((d) => d.q),
    }));
    const pooled = pooledMetrics(parts);
    console.log(line(`CV, LambdaMART, ${trees} trees`, pooled));
    if (pooled.mrr > chosenMrr + MIN_GAIN) [chosen, chosenMrr] = [trees, pooled.mrr];
  }
  const model = lambdaMart(data.map(rowsOf), chosen, DEPTH, TREE_RATE);
  console.log(`chosen: ${chosen} trees`);
  if (process.argv.includes('--write')) writeModel(model, chosen);
  console.log(
    line(
      'tune, LambdaMART (fitted on all)',
      scoreSet(data, (d) => martRank(model, d.candidates, chosen)),
    ),
  );
  if (heldOut) {
    const search = new ToolSearch(DEFAULT_WEIGHTS, { rerank: false });
    reportHeldOut((q) => martRank(model, features(q, search.search(tools, q, TOP)), chosen));
  }
}

const mode = process.argv[2];
const heldOutWanted = process.argv.includes('--heldout');
if (mode === 'ca') runCoordinateAscent(heldOutWanted);
else if (mode === 'rerank') runRerank(heldOutWanted);
else if (mode === 'mart') runMart(heldOutWanted);
else console.error('usage: search-ltr-probe.ts ca|rerank [--heldout]');
