/**
 * Features of the ranker's top hits for the re-rankers of search-ltr-probe.ts (issue 17): per candidate,
 * the ranker's score and rank, the share of the request's words and of the tool's name words matched,
 * intent against kind, server, lengths, and the scores of the ranker with parts left out (name only,
 * prose only, parameters only, exact words only, no intent).
 */
import { ToolSearch, type SearchableTool, type ToolHit } from '../../electron/core/policy/tool-search.js';
import { DEFAULT_WEIGHTS } from '../../electron/core/policy/search-weights.js';
import { ablations, RERANK_TOP, rerankFeatures } from '../../electron/core/policy/search-rerank.js';
import { stems } from '../../electron/core/policy/search-terms.js';
import { loadTools, type GoldenQuery } from './search-eval.js';

/** How many of the ranker's hits are re-ranked. */
export const TOP = RERANK_TOP;

const tools = loadTools();

export const FEATURES = [
  'score/top',
  '1/rank',
  'first',
  'words matched',
  'inexact share',
  'name words reached',
  'request in name',
  'request in description',
  'server named',
  'on named server',
  'intent = kind',
  'intent ≠ kind',
  'log description words',
  'params',
  'lister',
  'name words',
  'score, name only',
  'score, prose only',
  'score, params only',
  'score, exact words only',
  'score, no intent',
] as const;

/** The ranker with parts left out (search-rerank.ts), without the re-ranker: their scores are features. */
const ablated = ablations(DEFAULT_WEIGHTS).map(({ weights }) => new ToolSearch(weights, { rerank: false }));

function ablationScores(query: string): Map<string, number>[] {
  return ablated.map((search) => {
    const hits = search.search(tools, query, tools.length);
    const top = hits[0]?.score || 1;
    return new Map(hits.map((h) => [h.name, h.score / top]));
  });
}

export interface Candidate {
  name: string;
  rank: number;
  x: number[];
}

export interface Prepared {
  q: GoldenQuery;
  candidates: Candidate[];
}

const toolByName = new Map(tools.map((t) => [t.name, t]));
const serverStems = new Set(tools.flatMap((t) => stems(t.server)));

/** Each hit's features, computed as search does in search-rerank.ts. */
export function features(query: string, hits: ToolHit[]): Candidate[] {
  const x = rerankFeatures(
    query,
    hits.map((hit) => ({ hit, tool: toolByName.get(hit.name) as SearchableTool })),
    serverStems,
    ablationScores(query),
  );
  return hits.map((hit, rank) => ({ name: hit.name, rank, x: x[rank] }));
}

export function prepare(set: GoldenQuery[]): Prepared[] {
  const search = new ToolSearch(DEFAULT_WEIGHTS, { rerank: false });
  return set.map((q) => ({ q, candidates: features(q.query, search.search(tools, q.query, TOP)) }));
}
