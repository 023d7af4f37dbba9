/**
 * The learned re-ranker of tool search (issue 17): the ranker's top 20 hits put in order again by a small
 * LambdaMART model (boosted regression trees, search-rerank-model.ts) over features of each hit — the
 * ranker's score and rank, the share of the request's words and of the tool's name words matched, intent
 * against the tool's kind, server, lengths, and the scores of the ranker with parts left out. Learned on the
 * tuning queries only (test/bench/search-ltr-probe.ts mart), the number of trees chosen by cross-validation.
 */
import { queryIntent, toolKind } from './search-intent.js';
import { RERANK_MODEL } from './search-rerank-model.js';
import { normalizeTerm, stems, toolTerms } from './search-terms.js';
import type { SearchWeights } from './search-weights.js';

/** A score as hits show it. */
export const rounded = (value: number) => Math.round(value * 1000) / 1000;

/** How many of the ranker's hits are put in order again. */
export const RERANK_TOP = 20;

/** The parts of a candidate the features read. */
export interface RerankTool {
  name: string;
  server: string;
  original?: string;
  description?: string;
  inputSchema?: { properties?: Record<string, object> };
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean };
}

export interface RerankHit {
  score: number;
  matched: string[];
}

/** The ranker with a part left out: fields (weights 0), related words and prefixes (count 0), or intent (factors 1). */
export interface Ablation {
  weights: SearchWeights;
  leaves: 'fields' | 'related' | 'intent';
}

/**
 * The ranker with parts left out (name only, title and description only, parameters only, exact words
 * only, no intent): each one's score of a candidate, over its own best, is a feature.
 */
export function ablations(w: SearchWeights): Ablation[] {
  const only = (keep: (field: number) => boolean): SearchWeights => ({
    ...w,
    fields: w.fields.map((f, i) => ({ ...f, weight: keep(i) ? f.weight : 0 })),
  });
  return [
    { weights: only((i) => i === 0), leaves: 'fields' },
    { weights: only((i) => i === 1 || i === 2), leaves: 'fields' },
    { weights: only((i) => i >= 3), leaves: 'fields' },
    { weights: { ...w, prefix: 0, nearForm: 0, related: { strong: 0, weak: 0, wordnet: 0 } }, leaves: 'related' },
    {
      weights: { ...w, intent: { deleteOnDelete: 1, deleteOnRead: 1, deleteOnWrite: 1, writeOnRead: 1, writeOnDelete: 1, readOnOther: 1 } },
      leaves: 'intent',
    },
  ];
}

const ownName = (t: RerankTool) => t.original ?? t.name.slice(t.server.length + 2);

/** What the features read of a tool that no request changes, worked out once per tool. */
interface ToolFacts {
  nameStems: Set<string>;
  descStems: Set<string>;
  serverStems: string[];
  kind: ReturnType<typeof toolKind>;
  descWords: number;
  params: number;
  lister: boolean;
}

const facts = new WeakMap<RerankTool, ToolFacts>();

function factsOf(tool: RerankTool): ToolFacts {
  let known = facts.get(tool);
  if (!known) {
    const own = ownName(tool);
    known = {
      nameStems: new Set(stems(own)),
      descStems: new Set(stems(tool.description ?? '')),
      serverStems: stems(tool.server),
      kind: toolKind({ name: own, ...(tool.annotations ? { annotations: tool.annotations } : {}) }),
      descWords: toolTerms(tool.description ?? '').length,
      params: Object.keys(tool.inputSchema?.properties ?? {}).length,
      lister: normalizeTerm(toolTerms(own)[0] ?? '') === 'list',
    };
    facts.set(tool, known);
  }
  return known;
}

/**
 * The features of each hit, best first as the ranker gave them. `serverStems` are every server's name
 * stems; `parts[k]` maps a tool's name to its score under ablation k over that ablation's best.
 */
export function rerankFeatures(
  query: string,
  hits: { hit: RerankHit; tool: RerankTool }[],
  serverStems: Iterable<string>,
  parts: ReadonlyMap<string, number>[],
): number[][] {
  const qStems = new Set(stems(query));
  const intent = queryIntent([...qStems]);
  const top = hits[0]?.hit.score || 1;
  let serverNamed = false;
  for (const s of serverStems) if (qStems.has(s)) serverNamed = true;
  return hits.map(({ hit, tool }, rank) => {
    const { nameStems, descStems, serverStems: server, kind, descWords, params, lister } = factsOf(tool);
    const reached = [...nameStems].filter((s) => qStems.has(s)).length;
    const words = Math.max(1, qStems.size);
    const inDesc = [...qStems].filter((s) => descStems.has(s)).length;
    return [
      hit.score / top,
      1 / (rank + 1),
      rank === 0 ? 1 : 0,
      hit.matched.length / words,
      hit.matched.length ? hit.matched.filter((m) => m.includes('≈')).length / hit.matched.length : 0,
      nameStems.size ? reached / nameStems.size : 0,
      reached / words,
      inDesc / words,
      serverNamed ? 1 : 0,
      server.some((s) => qStems.has(s)) ? 1 : 0,
      intent !== undefined && intent === kind ? 1 : 0,
      intent !== undefined && intent !== kind ? 1 : 0,
      Math.log(1 + descWords),
      params,
      lister ? 1 : 0,
      nameStems.size,
      ...parts.map((m) => m.get(tool.name) ?? 0),
    ];
  });
}

/** Per tree, where each split's right subtree starts (found once: walking past the left one costs its size). */
const rightStarts = new WeakMap<readonly number[], Int32Array>();

function rightsOf(nodes: readonly number[]): Int32Array {
  let rights = rightStarts.get(nodes);
  if (!rights) {
    const found = new Int32Array(nodes.length);
    const walk = (at: number): number => {
      if (nodes[at] < 0) return at + 2;
      found[at] = walk(at + 2);
      return walk(found[at]);
    };
    walk(0);
    rights = found;
    rightStarts.set(nodes, rights);
  }
  return rights;
}

/** One tree, flat in pre-order: a split is `feature, threshold, left..., right...`; a leaf is `-1, value`. */
function leaf(nodes: readonly number[], x: number[]): number {
  const rights = rightsOf(nodes);
  let at = 0;
  while (nodes[at] >= 0) at = x[nodes[at]] <= nodes[at + 1] ? at + 2 : rights[at];
  return nodes[at + 1];
}

/** The model's score of one candidate's features. */
export function rerankScore(x: number[], model: { rate: number; trees: readonly (readonly number[])[] } = RERANK_MODEL): number {
  let s = 0;
  for (const nodes of model.trees) s += model.rate * leaf(nodes, x);
  return s;
}

/** The hits' new order (indexes into `features`): by the model's score, ties in the ranker's order. */
export function rerankOrder(features: number[][]): number[] {
  const scores = features.map((x) => rerankScore(x));
  return scores.map((_, i) => i).sort((a, b) => scores[b] - scores[a] || a - b);
}

/**
 * Each ablation's score of the top hits (`wanted`, by name) over that ablation's best, both rounded as
 * hits' scores are: `scores[k][j]` is the score of the matching tool `names[j]` under ablation k of `ablations`.
 */
export function ablatedParts(wanted: ReadonlySet<string>, names: readonly string[], scores: readonly (readonly number[])[]): Map<string, number>[] {
  return scores.map((values) => {
    let top = 0;
    const raw = new Map<string, number>();
    values.forEach((value, j) => {
      if (value > top) top = value;
      if (wanted.has(names[j])) raw.set(names[j], value);
    });
    const best = rounded(top) || 1;
    return new Map([...raw].map(([name, value]) => [name, rounded(value) / best]));
  });
}

/** The top hits put in order again by the model over their `features` (rerankFeatures); the rest kept as they were. */
export function rerankHits<H extends RerankHit>(hits: H[], features: number[][]): H[] {
  const head = hits.slice(0, RERANK_TOP);
  // Scores stay best first: the hit now k-th shows the k-th best score (the model's own are on no scale a reader knows).
  return [...rerankOrder(features).map((i, k) => ({ ...head[i], score: head[k].score })), ...hits.slice(RERANK_TOP)];
}
