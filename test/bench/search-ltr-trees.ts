/**
 * LambdaMART, small (for search-ltr-probe.ts): boosted regression trees fitted to lambda gradients, which
 * push a better candidate above a worse one by how much swapping them changes nDCG@10. Deterministic: the
 * split thresholds are quantiles of each feature, no sampling. Starting scores are 0, ties broken by the
 * ranker's own order, so an empty ensemble is the ranker itself.
 */
export interface Row {
  x: number[];
  label: number;
  /** The ranker's own position: breaks ties. */
  rank: number;
}

interface Node {
  feature: number;
  threshold: number;
  left: Node | number;
  right: Node | number;
}

export interface Ensemble {
  trees: (Node | number)[];
  rate: number;
}

const BINS = 16;
const MIN_LEAF = 20;

function predictTree(node: Node | number, x: number[]): number {
  while (typeof node !== 'number') node = x[node.feature] <= node.threshold ? node.left : node.right;
  return node;
}

export function predict(model: Ensemble, x: number[], upTo = model.trees.length): number {
  let s = 0;
  for (let t = 0; t < upTo; t++) s += model.rate * predictTree(model.trees[t], x);
  return s;
}

/** Candidates in the order a model's scores give them (ties: the ranker's order). */
export function order<T extends { rank: number }>(rows: T[], scores: number[]): T[] {
  return rows
    .map((row, i) => ({ row, s: scores[i] }))
    .sort((a, b) => b.s - a.s || a.row.rank - b.row.rank)
    .map(({ row }) => row);
}

const gain = (label: number) => 2 ** label - 1;
const discount = (position: number) => (position < 10 ? 1 / Math.log2(position + 2) : 0);

/** Per row: the lambda gradient and its second derivative, for the current scores. */
function lambdas(groups: Row[][], scores: number[][]): { g: number[][]; h: number[][] } {
  const g = groups.map((rows) => rows.map(() => 0));
  const h = groups.map((rows) => rows.map(() => 0));
  groups.forEach((rows, q) => {
    const ranked = order(
      rows.map((r, i) => ({ ...r, i })),
      scores[q],
    );
    const position = new Array<number>(rows.length);
    ranked.forEach((r, p) => (position[r.i] = p));
    const ideal = [...rows.map((r) => r.label)].sort((a, b) => b - a).reduce((s, l, p) => s + gain(l) * discount(p), 0) || 1;
    for (let i = 0; i < rows.length; i++)
      for (let j = 0; j < rows.length; j++) {
        if (rows[i].label <= rows[j].label) continue;
        const delta = Math.abs((gain(rows[i].label) - gain(rows[j].label)) * (discount(position[i]) - discount(position[j]))) / ideal || 1e-3 / ideal;
        const rho = 1 / (1 + Math.exp(scores[q][i] - scores[q][j]));
        g[q][i] += rho * delta;
        g[q][j] -= rho * delta;
        h[q][i] += rho * (1 - rho) * delta;
        h[q][j] += rho * (1 - rho) * delta;
      }
  });
  return { g, h };
}

function thresholds(xs: number[][], dims: number): number[][] {
  return Array.from({ length: dims }, (_, f) => {
    const values = xs.map((x) => x[f]).sort((a, b) => a - b);
    const cuts = new Set<number>();
    for (let b = 1; b < BINS; b++) cuts.add(values[Math.floor((b * values.length) / BINS)]);
    return [...cuts];
  });
}

/** Per feature, which bin each row falls in: bin k holds values above cut k - 1 and at most cut k. */
function binsOf(xs: number[][], cuts: number[][]): Uint8Array[] {
  return cuts.map((c, f) =>
    Uint8Array.from(xs, (x) => {
      let k = 0;
      while (k < c.length && x[f] > c[k]) k++;
      return k;
    }),
  );
}

function grow(rows: number[], bins: Uint8Array[], g: number[], h: number[], cuts: number[][], depth: number): Node | number {
  let G = 0;
  let H = 1e-6;
  for (const r of rows) {
    G += g[r];
    H += h[r];
  }
  if (depth === 0 || rows.length < 2 * MIN_LEAF) return G / H;
  let best = { gain: 1e-9, feature: -1, cut: 0 };
  for (let f = 0; f < cuts.length; f++) {
    const k = cuts[f].length + 1;
    const gs = new Float64Array(k);
    const hs = new Float64Array(k);
    const ns = new Int32Array(k);
    const bin = bins[f];
    for (const r of rows) {
      gs[bin[r]] += g[r];
      hs[bin[r]] += h[r];
      ns[bin[r]]++;
    }
    let gl = 0;
    let hl = 0;
    let n = 0;
    for (let c = 0; c < k - 1; c++) {
      gl += gs[c];
      hl += hs[c];
      n += ns[c];
      if (n < MIN_LEAF || rows.length - n < MIN_LEAF) continue;
      const value = (gl * gl) / (hl + 1e-6) + ((G - gl) * (G - gl)) / (H - hl) - (G * G) / H;
      if (value > best.gain) best = { gain: value, feature: f, cut: c };
    }
  }
  if (best.feature < 0) return G / H;
  const bin = bins[best.feature];
  return {
    feature: best.feature,
    threshold: cuts[best.feature][best.cut],
    left: grow(
      rows.filter((r) => bin[r] <= best.cut),
      bins,
      g,
      h,
      cuts,
      depth - 1,
    ),
    right: grow(
      rows.filter((r) => bin[r] > best.cut),
      bins,
      g,
      h,
      cuts,
      depth - 1,
    ),
  };
}

/** Fits `trees` trees of `depth` levels, each step scaled by `rate`. */
export function lambdaMart(groups: Row[][], trees: number, depth: number, rate: number): Ensemble {
  const xs = groups.flat().map((r) => r.x);
  const cuts = thresholds(xs, xs[0].length);
  const bins = binsOf(xs, cuts);
  const model: Ensemble = { trees: [], rate };
  const scores = groups.map((rows) => rows.map(() => 0));
  for (let t = 0; t < trees; t++) {
    const { g, h } = lambdas(groups, scores);
    const tree = grow(
      xs.map((_, i) => i),
      bins,
      g.flat(),
      h.flat(),
      cuts,
      depth,
    );
    model.trees.push(tree);
    groups.forEach((rows, q) => rows.forEach((r, i) => (scores[q][i] += rate * predictTree(tree, r.x))));
  }
  return model;
}

/** A tree flat in pre-order, as search-rerank.ts reads it: a split `feature, threshold, left, right`, a leaf `-1, value`. */
export function flatTree(node: Node | number): number[] {
  return typeof node === 'number' ? [-1, node] : [node.feature, node.threshold, ...flatTree(node.left), ...flatTree(node.right)];
}
